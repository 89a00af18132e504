// The HTML reports in a real headless Chromium at 1280 × 900, driven by
// playwright-core (TestReportsFitTheWindow runs it). Usage:
//
//   PLAYWRIGHT_CORE=<dir of the playwright-core package> CHROMIUM=/usr/bin/chromium \
//     node reportwidth.mjs FILE...
//
// For each file it prints one line of JSON on stdout: the page's width
// (document scrollWidth) and the window's (clientWidth), and for each
// sideways-scrolling box (.scroll) its right edge, its own width and the
// width of what it holds, and whether it holds the scoreboard (table.board).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch } from './chromium.mjs';

const files = process.argv.slice(2);
if (files.length === 0 || !process.env.PLAYWRIGHT_CORE || !process.env.CHROMIUM) {
  console.error('usage: PLAYWRIGHT_CORE=DIR CHROMIUM=PATH node reportwidth.mjs FILE...');
  process.exit(2);
}
const { chromium } = await import(pathToFileURL(join(process.env.PLAYWRIGHT_CORE, 'index.mjs')).href);

const { context, close } = await launch(chromium);
try {
  const page = context.pages()[0] ?? await context.newPage();
  for (const f of files) {
    await page.goto(pathToFileURL(f).href);
    const m = await page.evaluate(() => ({
      page: document.documentElement.scrollWidth,
      window: document.documentElement.clientWidth,
      boxes: [...document.querySelectorAll('.scroll')].map(b => ({
        right: Math.ceil(b.getBoundingClientRect().right),
        width: b.clientWidth,
        content: b.scrollWidth,
        overflowX: getComputedStyle(b).overflowX,
        board: b.querySelector('table.board') !== null,
      })),
    }));
    console.log(JSON.stringify({ file: f, ...m }));
  }
} finally {
  await close();
}
