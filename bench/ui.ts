// Figure 7 of `npm run bench` (BENCH_ONLY=7 alone): the browser UI in headless Chromium against a flowgate process
// holding 1,000 runs. Speed goals live here, never as timed assertions in tests (tests/browser checks that 1,000
// runs render and filter at all).
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, ensureChromium } from '../scripts/infra/index.mjs';

export interface UiFigures {
  /** Bytes of the page's own files on a first load (cold cache), headers included. */
  firstLoadFileBytes: number;
  /** The same plus the first load's data calls (the list of runs). */
  firstLoadTotalBytes: number;
  /** Milliseconds, median and worst of the rounds. */
  openList: Timing;
  renderOnly: Timing;
  quickFilter: Timing;
  statusFilter: Timing;
  scrollToEnd: Timing;
  rounds: number;
  chromium: string;
}
export interface Timing {
  median: number;
  worst: number;
}

const RUNS = 1000;

/** Waits for the next frame to be painted: what a user sees, not just what the DOM holds. */
const NEXT_PAINT = 'new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))';

export async function measureUi(url: string, rounds = 5): Promise<UiFigures> {
  const browser = await chromium.launch({ executablePath: await ensureChromium(), args: [...CHROMIUM_ARGS] });
  try {
    const openList: number[] = [];
    const renderOnly: number[] = [];
    const quickFilter: number[] = [];
    const statusFilter: number[] = [];
    const scrollToEnd: number[] = [];
    let firstLoadFileBytes = 0;
    let firstLoadTotalBytes = 0;
    for (let round = 0; round < rounds; round++) {
      // A new context per round: a cold cache, as a first visit.
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const page = await context.newPage();
      const sizes: Promise<{ url: string; bytes: number }>[] = [];
      let sizing = true;
      page.on('requestfinished', (request) => {
        // Only the first load's requests: a later one's sizes() still pending when the context closes rejects,
        // unhandled, and ends the bench.
        if (!sizing) return;
        sizes.push(request.sizes().then((size) => ({ url: request.url(), bytes: size.responseBodySize + size.responseHeadersSize })));
      });
      const started = Date.now();
      await page.goto(`${url}/ui/runs?limit=${RUNS}`);
      await waitForRows(page, RUNS);
      await page.evaluate(NEXT_PAINT);
      openList.push(Date.now() - started);
      renderOnly.push(await page.evaluate<number>("performance.getEntriesByName('flowgate:runs-render').at(-1).duration"));
      sizing = false;
      const loaded = await Promise.all(sizes);
      if (round === 0) {
        firstLoadFileBytes = loaded.filter((entry) => new URL(entry.url).pathname.startsWith('/ui')).reduce((sum, entry) => sum + entry.bytes, 0);
        firstLoadTotalBytes = loaded.reduce((sum, entry) => sum + entry.bytes, 0);
      }
      quickFilter.push(await timed(page, async () => {
        await page.getByLabel('Quick filter').fill('ui-1');
        await page.evaluate(NEXT_PAINT);
      }));
      await page.getByLabel('Quick filter').fill('');
      scrollToEnd.push(await timed(page, async () => {
        await page.evaluate(`window.scrollTo(0, document.body.scrollHeight); ${NEXT_PAINT}`);
      }));
      statusFilter.push(await timed(page, async () => {
        await page.getByLabel('Status').selectOption('completed');
        await page.waitForURL(/status=completed/);
        // A function, not a string: the page's CSP refuses eval, which a string predicate needs.
        await page.waitForFunction(() => performance.getEntriesByName('flowgate:runs-render').length >= 2);
        await page.evaluate(NEXT_PAINT);
      }));
      await context.close();
    }
    return {
      firstLoadFileBytes,
      firstLoadTotalBytes,
      openList: summary(openList),
      renderOnly: summary(renderOnly),
      quickFilter: summary(quickFilter),
      statusFilter: summary(statusFilter),
      scrollToEnd: summary(scrollToEnd),
      rounds,
      chromium: browser.version(),
    };
  } finally {
    await browser.close();
  }
}

async function waitForRows(page: Page, count: number): Promise<void> {
  await page.locator('tbody tr').nth(count - 1).waitFor({ timeout: 60_000 });
}

async function timed(_page: Page, action: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

function summary(values: number[]): Timing {
  const sorted = [...values].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, worst: sorted[sorted.length - 1]! };
}

/** The table and verdict of figure 7. */
export function uiFigureRows(figures: UiFigures): { table: string[][]; met: boolean; verdict: string } {
  const ms = (timing: Timing) => [`${timing.median.toFixed(0)} ms`, `${timing.worst.toFixed(0)} ms`];
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  const usable = figures.openList.worst < 1000 && figures.quickFilter.worst < 1000 && figures.statusFilter.worst < 1000 && figures.scrollToEnd.worst < 1000;
  const light = figures.firstLoadFileBytes < 200 * 1024;
  return {
    table: [
      ['measurement', 'median', 'worst', 'goal'],
      [`open the list of ${RUNS} runs (navigation to the rows painted, API call included)`, ...ms(figures.openList), '< 1 s'],
      [`render ${RUNS} rows (in the page, from the API's answer to the DOM)`, ...ms(figures.renderOnly), '—'],
      [`quick filter over ${RUNS} loaded rows (keystrokes to the next paint)`, ...ms(figures.quickFilter), '< 1 s'],
      [`status filter (a new API call and ${RUNS} rows rendered again)`, ...ms(figures.statusFilter), '< 1 s'],
      [`scroll to the end of ${RUNS} rows (to the next paint)`, ...ms(figures.scrollToEnd), '< 1 s'],
      ['first load: the page\'s files (cold cache, headers included)', kb(figures.firstLoadFileBytes), '', '< 200 KB'],
      [`first load with its data call (${RUNS} runs as JSON)`, kb(figures.firstLoadTotalBytes), '', '—'],
    ],
    met: usable && light,
    verdict: `${figures.rounds} rounds in headless Chromium ${figures.chromium}, 1280 × 800, a new browser context (cold cache) each; ${usable ? 'every action under 1 s' : 'an action took 1 s or more'}, first load ${kb(figures.firstLoadFileBytes)}`,
  };
}
