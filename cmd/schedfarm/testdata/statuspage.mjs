// The status page in a real headless Chromium, driven by playwright-core
// (TestStatusPageInBrowser runs it). Usage:
//
//   PLAYWRIGHT_CORE=<dir of the playwright-core package> CHROMIUM=/usr/bin/chromium \
//     node statuspage.mjs URL OUT_DIR ERROR_TEXT RUN JOBS DONE RERUN
//
// RUN is the test's run; the farm also has history (60 finished runs of
// JOBS failed jobs each, older than RUN), then DONE (2 jobs done, a report
// without claims) and RERUN (DONE again: nothing to do). It walks the page through the
// steps of the Go test, printing the name of each step on stdout once the
// page shows it and waiting for a line "next" on stdin before it goes on
// (the test changes the farm in between):
//
//   mid   the run is in progress: the failing job's error shows, escaped;
//         a worker shows its current job by sweep and parameters; the page
//         lists the newest 50 of 63 runs and says what it leaves out; the
//         finished runs are folded to one line each (progress, verdict
//         counts, report), a history run's holding "JOBS; 5 listed" failed
//         jobs; DONE says "no claims" (no note that claims will come), RERUN
//         "nothing to do"; the running run and the workers lie within the
//         first 1280 × 900 viewport (screenshot OUT_DIR/mid.png)
//   down  the coordinator is stopped: the page says it is unreachable
//   up    another coordinator answers: the page shows the failover
//   end   the run is complete at 100 %, folded to its line with "1 pass"
//         and its report's path; unfolded (and still so after the next
//         poll) it shows its claim verdicts and failed jobs
//         (screenshot OUT_DIR/end.png); the DOM checks passed
//   server-down  the page's own server is stopped: the page says so and
//         keeps the runs
//   ok    a new server answers on the same address: the page is live again
//
// Any failed check prints "FAIL: why" on stderr and exits 1 (with
// OUT_DIR/error.png).
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { launch } from './chromium.mjs';

const [url, outDir, errorText, runID, jobs, doneID, rerunID] = process.argv.slice(2);
if (!url || !outDir || !errorText || !runID || !jobs || !doneID || !rerunID || !process.env.PLAYWRIGHT_CORE || !process.env.CHROMIUM) {
  console.error('usage: PLAYWRIGHT_CORE=DIR CHROMIUM=PATH node statuspage.mjs URL OUT_DIR ERROR_TEXT RUN JOBS DONE RERUN');
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

const { context, close } = await launch(chromium);
const page = context.pages()[0] ?? await context.newPage();
const pageErrors = [];
page.on('pageerror', e => pageErrors.push(String(e)));
page.on('dialog', d => { pageErrors.push('dialog opened: ' + d.message()); d.dismiss(); });

try {
  await page.goto(url);

  const mine = `.run[data-run="${runID}"]`;
  // mid: progress between 0 and 100 %, the failure listed with its error as text.
  await page.waitForFunction(err => {
    const run = document.querySelector('#running article.run[data-status="running"]');
    if (!run) return false;
    const pct = Number(run.dataset.percent);
    const errs = [...run.querySelectorAll('table.failures td.error')].map(td => td.textContent);
    return pct > 0 && pct < 100 && errs.length > 0 && errs.every(t => t === err);
  }, errorText, wait);
  // A worker's current job by its sweep, index and parameters (sorted by name).
  await page.waitForFunction(run => [...document.querySelectorAll('tr.worker td.current')]
    .some(td => td.dataset.run === run && /^page #\d+: k=[12] mode=wait$/.test(td.textContent)), runID, wait);
  // The history: the newest 50 of 63 runs, and a notice of what is left out.
  check(await page.locator('.run').count() === 50, `${await page.locator('.run').count()} runs shown, want the newest 50`);
  check(await page.locator(mine).count() === 1, 'the test\'s run is not shown');
  check((await page.textContent('#runs-count')).includes('the newest 50 of 63'), `runs count reads ${JSON.stringify(await page.textContent('#runs-count'))}`);
  check(await page.isVisible('#cut'), 'no notice of what the page leaves out');
  const cut = await page.textContent('#cut');
  check(/13 older runs not listed/.test(cut) && /\d+ failed jobs not listed/.test(cut), `the notice reads ${JSON.stringify(cut)}`);
  const folded = '#finished details.run.folded[data-status="complete"]';
  check(await page.locator(folded).count() === 49, `${await page.locator(folded).count()} finished runs folded, want 49`);
  check(await page.locator('#finished details.run[open]').count() === 0, 'a finished run is unfolded');
  const heads = await page.locator(`${folded} h3.failures-head`).allTextContents();
  check(heads.length === 47 && heads.every(h => h === `Failed jobs (${jobs}; 5 listed)`), `history runs' failure heads: ${JSON.stringify(heads.slice(0, 3))} (${heads.length})`);
  check(await page.locator(`${folded} table.failures tr.failure`).count() === 47 * 5, 'not 5 failed jobs listed per history run');
  // Each finished run is one line: the summary's content is one line high,
  // nothing below it shows, nothing runs off the window's right edge.
  const lines = await page.evaluate(() => [...document.querySelectorAll('#finished details.run')].map(d => {
    const s = d.querySelector(':scope > summary'), cs = getComputedStyle(s), box = d.getBoundingClientRect(), sb = s.getBoundingClientRect();
    return { id: d.dataset.run, text: s.textContent, lineHeight: parseFloat(cs.lineHeight),
      content: sb.height - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom), height: box.height, summary: sb.height, right: box.right };
  }));
  for (const l of lines) {
    check(l.content < 1.5 * l.lineHeight && l.height <= l.summary + 2 && l.right <= 1280,
      `finished run ${l.id} is not one line: ${JSON.stringify(l)}`);
  }
  const line = id => lines.find(l => l.id === id)?.text ?? '';
  const history = lines.find(l => l.id !== doneID && l.id !== rerunID);
  check(history.text.includes(`100.0 % · 0 done, ${jobs} failed`) && history.text.includes('no report yet'), `a history run's line reads ${JSON.stringify(history.text)}`);
  check(line(doneID).includes('100.0 % · 2 done') && line(doneID).includes('no claims') && line(doneID).includes('report.md'), `the line of the run with a report and no claims reads ${JSON.stringify(line(doneID))}`);
  check(line(rerunID).includes('nothing to do: all 2 jobs were done by earlier runs') && !line(rerunID).includes('jobs/s'), `the rerun's line reads ${JSON.stringify(line(rerunID))}`);
  check(await page.locator(`.run[data-run="${doneID}"] .claims-none`).count() === 0, 'a run with a report and no claims says claim verdicts will appear');
  const rerunBody = await page.locator(`.run[data-run="${rerunID}"] .run-body`).textContent();
  check(rerunBody.includes('nothing to do') && !rerunBody.includes('0 / 0 jobs') && !rerunBody.includes('jobs/s'), `the rerun's card reads ${JSON.stringify(rerunBody.slice(0, 300))}`);
  // The running run and the workers within the first viewport.
  for (const [what, sel] of [['the running run', '#running article.run[data-status="running"]'], ['the workers', '#workers table.workers']]) {
    const box = await page.locator(sel).boundingBox();
    check(box && box.y >= 0 && box.x >= 0 && box.y + box.height <= 900 && box.x + box.width <= 1280,
      `${what} not within the first 1280 × 900 viewport: ${JSON.stringify(box)}`);
  }
  await page.screenshot({ path: join(outDir, 'mid.png') });
  const midError = page.locator(`${mine} table.failures td.error`).first();
  check(await midError.isVisible(), 'the failing job\'s error is not visible');
  check(await midError.innerText() === errorText, `the error shows as ${JSON.stringify(await midError.innerText())}, want ${JSON.stringify(errorText)}`);
  await step('mid');

  // down: the coordinator stopped; the page keeps its last answer.
  await page.waitForSelector('#conn[data-state="unreachable"]', wait);
  check((await page.textContent('#conn')).includes('unreachable since'), 'no "unreachable since" in the header');
  check(await page.isVisible('#banner'), 'no banner while the coordinator is unreachable');
  check(await page.locator('.run').count() > 0, 'the runs vanished while the coordinator was unreachable');
  await step('down');

  // up: another coordinator answers; the failover is shown.
  await page.waitForSelector('#conn[data-state="live"]', wait);
  await page.waitForSelector('#events li[data-kind="failover"]', wait);
  await step('up');

  // end: complete, 100 %, folded to a line with its verdict counts and
  // report; unfolded, its claim verdicts.
  await page.waitForSelector(`#finished ${mine}[data-status="complete"][data-percent="100.0"] table.claims`, { ...wait, state: 'attached' });
  await page.waitForFunction(sel => /report\.html/.test(document.querySelector(sel + ' > summary').textContent), mine, wait);
  const mineLine = await page.textContent(`${mine} > summary`);
  check(mineLine.includes('100.0 % · 4 done, 2 failed') && mineLine.includes('1 pass') && mineLine.includes('report.html'), `the run's line reads ${JSON.stringify(mineLine)}`);
  check(await page.locator('#running article.run').count() === 0 && await page.isVisible('text=No run in progress.'), 'a run still shown in progress');
  await page.screenshot({ path: join(outDir, 'end.png') });
  await page.click(`${mine} > summary`);
  const updated = await page.textContent('#updated');
  await page.waitForFunction(u => document.getElementById('updated').textContent !== u, updated, wait);
  check(await page.locator(`${mine}[open]`).count() === 1, 'the unfolded run folded again at the next poll');
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
  check(await page.locator(`${mine}[data-status="complete"]`).count() === 1 && await page.locator('.run').count() === 50,
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
  await close();
}
process.exit(process.exitCode ?? 0);
