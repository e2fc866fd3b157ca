import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import type { EmbeddedEngine } from '../../../adapters/embedded/index.js';
import { step, workflow } from '../../../core/definition/index.js';
import { HISTORY_PAGE_MAX_BYTES, type HistoryEvent } from '../../../core/domain/history.js';
import { knownJsonText } from '../../../core/domain/json.js';
import type { RunStreamItem } from '../../../ports/engine.js';
import { historyEventsOf } from '../../support/runStream.js';
import { validationError } from '../../support/rejection.js';
import { durableHarness } from './durableSupport.js';
import { flush, harness } from './support.js';

const tick = step({ name: 'tick', fn: async (n: number) => n });
const ticker = workflow({
  name: 'ticker',
  description: 'Sleeps, then runs three steps',
  inputSchema: z.object({ sleepMs: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ sleepMs }, ctx) => {
    await ctx.sleep(sleepMs);
    for (const n of [1, 2, 3]) await tick(n);
    return 'done';
  },
});

/** Returns `kb` kilobytes of text: each step's output is one large event of the history. */
const bulky = step({ name: 'bulky', fn: async (kb: number) => ({ text: 'é'.repeat(kb * 512) }) });
const bulkyRun = workflow({
  name: 'bulky_run',
  description: 'Runs one step per entry of sizes, each returning that many kilobytes',
  inputSchema: z.object({ sizes: z.array(z.number()) }),
  outputSchema: z.unknown(),
  fn: async ({ sizes }) => {
    for (const kb of sizes) await bulky(kb);
    return 'done';
  },
});

/** Every page of a run's history at pageSize 200, as the engine hands them out. */
async function pagesOf(engine: EmbeddedEngine, ref: { workflowId: string; runId: string }): Promise<HistoryEvent[][]> {
  const pages: HistoryEvent[][] = [];
  let pageToken: string | undefined;
  do {
    const { page } = await engine.historyPage(ref, { pageSize: 200, ...(pageToken ? { pageToken } : {}) });
    pages.push(page.events);
    pageToken = page.nextPageToken ?? undefined;
  } while (pageToken !== undefined);
  return pages;
}

/** Pages of at most HISTORY_PAGE_MAX_BYTES (or of one larger event), together the whole history in order. */
function assertBoundedPages(pages: HistoryEvent[][], lastEventId: number): void {
  assert.ok(pages.length > 1, `${pages.length} page(s)`);
  for (const page of pages) {
    const bytes = Buffer.byteLength(JSON.stringify(page));
    assert.ok(page.length === 1 || bytes <= HISTORY_PAGE_MAX_BYTES, `a page of ${page.length} events is ${bytes} bytes`);
    assert.ok(page.length < 200);
  }
  assert.equal(pages.flat().map((event) => event.eventId), Array.from({ length: lastEventId }, (_, index) => index + 1));
}

async function collect(stream: AsyncIterable<RunStreamItem>): Promise<HistoryEvent[]> {
  const events: HistoryEvent[] = [];
  for await (const event of historyEventsOf(stream)) events.push(event);
  return events;
}

test('history pages cover the whole history with opaque tokens', async () => {
  const h = harness([ticker]);
  const ref = await h.run(ticker, { sleepMs: 10 });
  await h.outcome(ref);
  const seen: number[] = [];
  let pageToken: string | undefined;
  let pages = 0;
  do {
    const { run, page } = await h.engine.historyPage(ref, { pageSize: 4, ...(pageToken ? { pageToken } : {}) });
    assert.is(run.status, 'completed');
    seen.push(...page.events.map((e) => e.eventId));
    pageToken = page.nextPageToken ?? undefined;
    pages += 1;
  } while (pageToken);
  assert.equal(seen, Array.from({ length: 13 }, (_v, i) => i + 1));
  assert.is(pages, 4);
  for (const event of (await h.engine.historyPage(ref, { pageSize: 200 })).page.events) {
    assert.match(event.time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
  h.close();
});

test('a page ends at HISTORY_PAGE_MAX_BYTES before pageSize, its token continues; an event larger than that is a page of its own', async () => {
  // 300 KB outputs (as JSON: 'é' is two bytes) fill a page after three; the 1.5 MB one is a page alone.
  const sizes = [300, 300, 300, 300, 300, 1500, 300];
  const h = harness([bulkyRun]);
  const ref = await h.run(bulkyRun, { sizes });
  await h.outcome(ref);
  const pages = await pagesOf(h.engine, ref);
  assertBoundedPages(pages, sizes.length * 3 + 2);
  const alone = pages.find((page) => page.some((event) => event.type === 'step_completed' && (event.attributes.output as { text: string }).text.length === 1500 * 512));
  assert.is(alone?.length, 1, 'the 1.5 MB event is a page of its own');
  h.close();
});

test('the durable store pages the same way, live and once read back from the database; a follower of the stored run gets every event', async () => {
  const sizes = [300, 300, 300, 300, 1500, 300];
  const h = await durableHarness([bulkyRun]);
  try {
    const ref = await h.run(bulkyRun, { sizes }, 'bulky');
    await h.outcome(ref);
    assertBoundedPages(await pagesOf(h.engine, ref), sizes.length * 3 + 2);
    await h.restart();
    const stored = await pagesOf(h.engine, ref);
    assertBoundedPages(stored, sizes.length * 3 + 2);
    for (const event of stored.flat()) {
      // Read back as the stored text, handed on as it is: the same JSON as the event itself.
      assert.is(knownJsonText(event), JSON.stringify({ ...event }), `event ${event.eventId}`);
    }
    const followed = await collect(h.engine.followRun(ref, 0, new AbortController().signal));
    assert.equal(followed.map((event) => event.eventId), Array.from({ length: sizes.length * 3 + 2 }, (_, index) => index + 1));
  } finally {
    h.close();
  }
});

test('forged, garbled and stale history tokens are ValidationErrors with an invalid_page_token issue', async () => {
  const h = harness([ticker]);
  const a = await h.run(ticker, { sleepMs: 0 });
  const b = await h.run(ticker, { sleepMs: 0 });
  await h.outcome(a);
  await h.outcome(b);
  const token = (await h.engine.historyPage(a, { pageSize: 2 })).page.nextPageToken;
  assert.type(token, 'string');
  const sealed = token as string;
  const middle = Math.floor(sealed.length / 2);
  const flipped = sealed.slice(0, middle) + (sealed[middle] === 'A' ? 'B' : 'A') + sealed.slice(middle + 1);
  const forged = Buffer.from(JSON.stringify({ o: 0 })).toString('base64url');
  for (const bad of ['garbage', forged, flipped, `${sealed}x`, `${sealed}.extra`, `${sealed}=`, '']) {
    const error = await validationError(h.engine.historyPage(a, { pageSize: 2, pageToken: bad }));
    assert.is(error.message, 'pageToken is invalid or stale');
    assert.equal(error.issues, [{ code: 'invalid_page_token', path: ['pageToken'], message: 'pageToken is invalid or stale' }]);
  }
  await validationError(h.engine.historyPage(b, { pageSize: 2, pageToken: token as string }));
  await validationError(h.engine.historyPage(a, { pageSize: 0 }));
  await validationError(h.engine.historyPage(a, { pageSize: 201 }));
  h.close();
});

test('followRun yields existing then live events and ends after the closing event', async () => {
  const h = harness([ticker]);
  const ref = await h.run(ticker, { sleepMs: 100 });
  await flush();
  const following = collect(h.engine.followRun(ref, 1, new AbortController().signal));
  await h.clock.advance(100);
  const events = await following;
  assert.equal(events.map((e) => e.eventId), Array.from({ length: 12 }, (_v, i) => i + 2));
  assert.is(events.at(-1)?.type, 'workflow_completed');
  const afterClose = await collect(h.engine.followRun(ref, 10, new AbortController().signal));
  assert.equal(afterClose.map((e) => e.eventId), [11, 12, 13], 'a closed run streams the rest and ends');
  assert.equal(await collect(h.engine.followRun(ref, 13, new AbortController().signal)), []);
  h.close();
});

test('followRun returns promptly when its signal aborts, and when the consumer stops', async () => {
  const h = harness([ticker]);
  const ref = await h.run(ticker, { sleepMs: 3_600_000 });
  await flush();
  const controller = new AbortController();
  const following = collect(h.engine.followRun(ref, 0, controller.signal));
  await flush();
  controller.abort();
  const events = await following;
  assert.equal(events.map((e) => e.type), ['workflow_started', 'timer_started']);

  const iterator = h.engine.followRun(ref, 2, new AbortController().signal)[Symbol.asyncIterator]();
  const next = iterator.next();
  await flush();
  await iterator.return?.();
  assert.equal(await next, { value: undefined, done: true });
  h.close();
});

test('following an unknown run is WorkflowNotFoundError', () => {
  const h = harness([ticker]);
  assert.throws(
    () => h.engine.followRun({ workflowId: 'ghost', runId: '00000000-0000-4000-8000-000000000001' }, 0, new AbortController().signal),
    (error: Error) => error.name === 'WorkflowNotFoundError',
  );
  h.close();
});

test('close() ends live followers', async () => {
  const h = harness([ticker]);
  const ref = await h.run(ticker, { sleepMs: 3_600_000 });
  await flush();
  const following = collect(h.engine.followRun(ref, 0, new AbortController().signal));
  await flush();
  h.close();
  assert.is((await following).length, 2);
});

test.run();
