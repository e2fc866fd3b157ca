import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { runPath, runToEnd } from './support/api.js';
import { uiSuite } from './support/uiSuite.js';

/** The run page's history stream in Chromium, resumed after the run's closing event (docs/api.md, History). */
const test = uiSuite('UI: a resumed history stream');

test('a stream cut after the closing event is resumed once, answered 204, and the page ends on the run status', async (context) => {
  const ids = await runToEnd(context.api, 'echo', { message: 'cut' }, uniqueId('resume-end'));
  const browserContext = await context.browser.newContext();
  browserContext.setDefaultTimeout(20_000);
  try {
    const streams: { lastEventId: string | null; status?: number }[] = [];
    // The first stream loses its `done` frame, as when a proxy drops the connection right after the closing event.
    await browserContext.route(/\/history$/, async (route) => {
      const request = route.request();
      if (request.headers()['accept'] !== 'text/event-stream') return route.continue();
      const seen: { lastEventId: string | null; status?: number } = { lastEventId: request.headers()['last-event-id'] ?? null };
      streams.push(seen);
      const response = await route.fetch();
      seen.status = response.status();
      if (streams.length > 1) return route.fulfill({ response });
      const body = (await response.text()).replace(/event: done\n[^\n]*\n\n$/, '');
      assert.not.match(body, /event: done/, 'the first stream is cut before its done');
      return route.fulfill({ response, body });
    });
    const page = await browserContext.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${context.ui}${runPath(ids)}`);
    await page.locator('.connection[data-state="ended"]').waitFor({ state: 'attached' });
    await page.locator('.status-line .badge.status-completed').waitFor();
    await page.locator('tr[data-type="workflow_completed"]').waitFor();
    // Long enough for a reconnect loop to show (the page retries after half a second).
    await page.waitForTimeout(1_500);
    const closingEventId = await page.locator('tr[data-type="workflow_completed"]').getAttribute('data-event-id');
    assert.equal(
      streams.map((stream) => [stream.lastEventId, stream.status]),
      [[null, 200], [closingEventId, 204]],
      'the cut stream, then one resume answered 204, and no more',
    );
    assert.equal(pageErrors, []);
  } finally {
    await browserContext.close();
  }
});

test.run();
