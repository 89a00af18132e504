// The one way the browser tests start Chromium: headless, at 1280 × 900,
// in a fresh profile folder, with nothing that reaches the network on its
// own. Imported by statuspage.mjs and reportwidth.mjs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// launch starts Chromium (the executable CHROMIUM names) through
// playwright-core's chromium; close ends it and removes its profile.
export async function launch(chromium) {
  const profile = mkdtempSync(join(tmpdir(), 'schedfarm-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const close = async () => {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context, close };
}
