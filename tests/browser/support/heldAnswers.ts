import type { Page, Request } from 'playwright-core';

export interface HeldAnswers {
  /** Lets the held requests (and any later ones) through to the real server. */
  release(): void;
  /** How many matching requests have had their answer reach the page (or failed) so far. */
  answered(): number;
}

/**
 * Holds the page's GET requests whose URL matches `url` until release(): a slow server on demand, so a test can
 * leave a page while its first read is still out. The server stays real; only the answer's timing is the test's.
 */
export async function holdAnswers(page: Page, url: RegExp): Promise<HeldAnswers> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answered = 0;
  const settled = (request: Request) => {
    if (request.method() === 'GET' && url.test(request.url())) answered += 1;
  };
  page.on('requestfinished', settled);
  page.on('requestfailed', settled);
  await page.route(url, async (route) => {
    if (route.request().method() !== 'GET') return route.fallback();
    await released;
    // The page or its context may be closed by then (a failed test's finally): nothing is left to answer.
    await route.continue().catch(() => {});
  });
  return { release, answered: () => answered };
}
