// The status page in a real headless Chromium, driven by playwright-core
// (TestStatusPageInBrowser runs it). Usage:
//
//   PLAYWRIGHT_CORE=<dir of the playwright-core package> CHROMIUM=/usr/bin/chromium \
//     node statuspage.mjs URL OUT_DIR ERROR_TEXT RUN JOBS
//
// RUN is the test's run; the farm also has history (60 finished runs of
// JOBS failed jobs each, older than RUN). It walks the page through the
// steps of the Go test, printing the name of each step on stdout once the
// page shows it and waiting for a line "next" on stdin before it goes on
// (the test changes the farm in between):
//
//   mid   the run is in progress: the failing job's error shows, escaped;
//         a worker shows its current job; the page lists the newest 50 of
//         61 runs and says what it leaves out, a history run shows "JOBS;
//         5 listed" failed jobs (screenshot OUT_DIR/mid.png)
//   down  the coordinator is stopped: the page says it is unreachable
//   up    another coordinator answers: the page shows the failover
//   end   the run is complete at 100 %, with its claim verdicts
//         (screenshot OUT_DIR/end.png); the DOM checks passed
//   server-down  the page's own server is stopped: the page says so and
//         keeps the runs
//   ok    a new server answers on the same address: the page is live again
//
// Any failed check prints "FAIL: why" on stderr and exits 1 (with
// OUT_DIR/error.png).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

const [url, outDir, errorText, runID, jobs] = process.argv.slice(2);
if (!url || !outDir || !errorText || !runID || !jobs || !process.env.PLAYWRIGHT_CORE || !process.env.CHROMIUM) {
  console.error('usage: PLAYWRIGHT_CORE=DIR CHROMIUM=PATH node statuspage.mjs URL OUT_DIR ERROR_TEXT RUN JOBS');
  process.exit(2);
}
const { chromium } = await import(pathToFileURL(join(process.env.PLAYWRIGHT_CORE, 'index.mjs')).href);

const wait = { timeout: 90_000, polling: 100 };
const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

// step reports that the page reached a step and waits for the test's go-ahead.
async function step(name) {
  console.log(name);
  const line = await input.next();
  if (line.done || line.value.trim() !== 'next') throw new Error(`the test stopped after step ${name}`);
}

function check(ok, why) {
  if (!ok) throw new Error(why);
}

const profile = mkdtempSync(join(tmpdir(), 'schedfarm-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM,
  headless: true,
  viewport: { width: 1280, height: 900 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = context.pages()[0] ?? await context.newPage();
const pageErrors = [];
page.on('pageerror', e => pageErrors.push(String(e)));
page.on('dialog', d => { pageErrors.push('dialog opened: ' + d.message()); d.dismiss(); });

try {
  await page.goto(url);

  const mine = `article.run[data-run="${runID}"]`;
  // mid: progress between 0 and 100 %, the failure listed with its error as text.
  await page.waitForFunction(err => {
    const run = document.querySelector('article.run[data-status="running"]');
    if (!run) return false;
    const pct = Number(run.dataset.percent);
    const errs = [...run.querySelectorAll('table.failures td.error')].map(td => td.textContent);
    return pct > 0 && pct < 100 && errs.length > 0 && errs.every(t => t === err);
  }, errorText, wait);
  await page.waitForFunction(() => [...document.querySelectorAll('tr.worker td:nth-child(6)')]
    .some(td => td.textContent !== 'idle'), null, wait);
  // The history: the newest 50 of 61 runs, and a notice of what is left out.
  check(await page.locator('article.run').count() === 50, `${await page.locator('article.run').count()} runs shown, want the newest 50`);
  check(await page.locator(mine).count() === 1, 'the test\'s run is not shown');
  check((await page.textContent('#runs-count')).includes('the newest 50 of 61'), `runs count reads ${JSON.stringify(await page.textContent('#runs-count'))}`);
  check(await page.isVisible('#cut'), 'no notice of what the page leaves out');
  const cut = await page.textContent('#cut');
  check(/11 older runs not listed/.test(cut) && /\d+ failed jobs not listed/.test(cut), `the notice reads ${JSON.stringify(cut)}`);
  const heads = await page.locator('article.run[data-status="complete"] h3.failures-head').allInnerTexts();
  check(heads.length === 49 && heads.every(h => h === `Failed jobs (${jobs}; 5 listed)`), `history runs' failure heads: ${JSON.stringify(heads.slice(0, 3))} (${heads.length})`);
  check(await page.locator('article.run[data-status="complete"] table.failures tr.failure').count() === 49 * 5, 'not 5 failed jobs listed per history run');
  await page.screenshot({ path: join(outDir, 'mid.png') });
  const midError = page.locator(`${mine} table.failures td.error`).first();
  check(await midError.isVisible(), 'the failing job\'s error is not visible');
  check(await midError.innerText() === errorText, `the error shows as ${JSON.stringify(await midError.innerText())}, want ${JSON.stringify(errorText)}`);
  await step('mid');

  // down: the coordinator stopped; the page keeps its last answer.
  await page.waitForSelector('#conn[data-state="unreachable"]', wait);
  check((await page.textContent('#conn')).includes('unreachable since'), 'no "unreachable since" in the header');
  check(await page.isVisible('#banner'), 'no banner while the coordinator is unreachable');
  check(await page.locator('article.run').count() > 0, 'the runs vanished while the coordinator was unreachable');
  await step('down');

  // up: another coordinator answers; the failover is shown.
  await page.waitForSelector('#conn[data-state="live"]', wait);
  await page.waitForSelector('#events li[data-kind="failover"]', wait);
  await step('up');

  // end: complete, 100 %, claim verdicts.
  await page.waitForSelector(`${mine}[data-status="complete"][data-percent="100.0"] table.claims`, wait);
  await page.screenshot({ path: join(outDir, 'end.png') });
  const run = page.locator(mine);
  check(await run.locator('.percent').innerText() === '100.0 %', 'the percentage is not "100.0 %"');
  check(await run.locator('progress').getAttribute('value') === '100', 'the progress bar is not full');
  const errors = await run.locator('table.failures td.error').allInnerTexts();
  check(errors.length > 0 && errors.every(t => t === errorText), `failures shown: ${JSON.stringify(errors)}`);
  check(await run.getByText(errorText, { exact: true }).first().isVisible(), 'the literal error text is not visible');
  const markup = await page.evaluate(() => ({
    b: document.querySelectorAll('b').length,
    img: document.querySelectorAll('img').length,
    scripts: document.querySelectorAll('script').length,
    pwned: typeof window.pwned,
  }));
  check(markup.b === 0 && markup.img === 0 && markup.scripts === 1 && markup.pwned === 'undefined',
    `markup from the wire made it into the DOM: ${JSON.stringify(markup)}`);
  const failover = await page.locator('#events li[data-kind="failover"]').first().innerText();
  check(/coord-one → coord-two/.test(failover), `failover event reads ${JSON.stringify(failover)}`);
  check(await page.locator('table.claims tr[data-verdict]').count() > 0, 'no claim verdicts shown');
  check(pageErrors.length === 0, 'errors in the page: ' + pageErrors.join('; '));
  await step('end');

  // server-down: the page's own server stopped; the page keeps the runs and asks again.
  await page.waitForSelector('#conn[data-state="server-down"]', wait);
  check((await page.textContent('#conn')).includes('status server unreachable since'), 'no "status server unreachable since" in the header');
  check(await page.locator(`${mine}[data-status="complete"]`).count() === 1 && await page.locator('article.run').count() === 50,
    'the runs vanished while the server was down');
  await step('server-down');

  // ok: a new server on the same address; the page is live again.
  await page.waitForSelector('#conn[data-state="live"]', wait);
  check(await page.locator(`${mine}[data-status="complete"][data-percent="100.0"]`).count() === 1, 'the run is not back at 100 %');
  console.log('ok');
} catch (e) {
  console.error('FAIL: ' + (e && e.message ? e.message : e));
  await page.screenshot({ path: join(outDir, 'error.png'), fullPage: true }).catch(() => {});
  process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(process.exitCode ?? 0);
