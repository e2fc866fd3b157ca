import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { InvalidProgressError, MAX_PROGRESS_FIELDS_BYTES, progress, PROGRESS_BUFFER_SIZE, step, workflow } from '../../../core/definition/index.js';
import type { RunStreamItem } from '../../../ports/engine.js';
import { historyStream } from '../../../core/useCases/readHistory.js';
import type { HistoryStreamItem } from '../../../core/api/views.js';
import { historyEventsOf } from '../../support/runStream.js';
import { flush, harness } from './support.js';

/** progress(fields) on the embedded engine: kept beside the history, never in it, each at its place. */

const reports = step({
  name: 'reports',
  fn: async (count: number) => {
    for (let n = 1; n <= count; n += 1) progress({ n });
    return count;
  },
});

let failFirstAttempt = true;
const reportsThenFails = step({
  name: 'reports_then_fails',
  fn: async () => {
    progress({ phase: failFirstAttempt ? 'first' : 'second' });
    if (failFirstAttempt) {
      failFirstAttempt = false;
      throw new Error('once');
    }
    return 'ok';
  },
  retry: { maximumAttempts: 2, initialIntervalMs: 10 },
});

const reporter = workflow({
  name: 'reporter',
  description: 'Runs `reports` for each count',
  inputSchema: z.object({ counts: z.array(z.number()) }),
  outputSchema: z.unknown(),
  fn: async ({ counts }) => {
    for (const count of counts) await reports(count);
    return 'done';
  },
});

const parallel = workflow({
  name: 'parallel_reporters',
  description: 'Two steps reporting at the same time',
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  fn: async () => Promise.all([reports(2), reports(1)]),
});

const retrier = workflow({
  name: 'retrier',
  description: 'A step that reports, fails once, reports again',
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  fn: async () => reportsThenFails(undefined),
});

async function collect(iterable: AsyncIterable<RunStreamItem>): Promise<RunStreamItem[]> {
  const items: RunStreamItem[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const describe = (item: RunStreamItem): string =>
  item.kind === 'history' ? `${item.event.eventId}:${item.event.type}` : `progress ${item.progress.stepEventId}.${item.progress.seq}`;

test('progress sits between the step_started and the step_completed of its step; the history holds none', async () => {
  const h = harness([reporter]);
  const ref = await h.run(reporter, { counts: [2, 1] });
  await flush(20);
  const items = await collect(h.engine.followRun(ref, 0, new AbortController().signal));
  assert.equal(items.map(describe), [
    '1:workflow_started', '2:step_scheduled', '3:step_started', 'progress 2.1', 'progress 2.2', '4:step_completed',
    '5:step_scheduled', '6:step_started', 'progress 5.1', '7:step_completed', '8:workflow_completed',
  ]);
  const first = items.find((item) => item.kind === 'progress');
  assert.equal(first?.kind === 'progress' && first.runningSteps, [2]);
  assert.equal(first?.kind === 'progress' && first.progress.fields, { n: 1 });
  const history = (await h.engine.historyPage(ref, { pageSize: 200 })).page.events;
  assert.is(history.length, 8, 'the JSON history is the history alone');
  h.close();
});

test('following after an event: the progress that came after it, none before', async () => {
  const h = harness([reporter]);
  const ref = await h.run(reporter, { counts: [2, 1] });
  await flush(20);
  const afterThree = await collect(h.engine.followRun(ref, 3, new AbortController().signal));
  assert.equal(afterThree.map(describe).slice(0, 3), ['progress 2.1', 'progress 2.2', '4:step_completed']);
  const afterFour = await collect(h.engine.followRun(ref, 4, new AbortController().signal));
  assert.equal(afterFour.map(describe).slice(0, 3), ['5:step_scheduled', '6:step_started', 'progress 5.1']);
  const historyOnly = [];
  for await (const event of historyEventsOf(h.engine.followRun(ref, 0, new AbortController().signal))) historyOnly.push(event.eventId);
  assert.equal(historyOnly, [1, 2, 3, 4, 5, 6, 7, 8], 'the history events between the progress are the whole history, in order');
  h.close();
});

test('a step keeps only its latest PROGRESS_BUFFER_SIZE progress events', async () => {
  const h = harness([reporter]);
  const ref = await h.run(reporter, { counts: [PROGRESS_BUFFER_SIZE + 5] });
  await flush(20);
  const items = await collect(h.engine.followRun(ref, 0, new AbortController().signal));
  const seqs = items.flatMap((item) => (item.kind === 'progress' ? [item.progress.seq] : []));
  assert.equal(seqs, Array.from({ length: PROGRESS_BUFFER_SIZE }, (_v, i) => i + 6));
  h.close();
});

test('seq goes on across the attempts of one step call; attempt says which attempt reported', async () => {
  const h = harness([retrier]);
  const ref = await h.run(retrier, {});
  await flush(10);
  await h.clock.advance(10);
  await flush(10);
  const items = await collect(h.engine.followRun(ref, 0, new AbortController().signal));
  const progressItems = items.flatMap((item) => (item.kind === 'progress' ? [item.progress] : []));
  assert.equal(progressItems.map(({ seq, attempt, fields }) => ({ seq, attempt, fields })), [
    { seq: 1, attempt: 1, fields: { phase: 'first' } },
    { seq: 2, attempt: 2, fields: { phase: 'second' } },
  ]);
  h.close();
});

test('stream ids: a progress id lists every running step with progress; a reconnect with it sends neither repeats nor gaps', async () => {
  const h = harness([parallel]);
  const ref = await h.run(parallel, {});
  await flush(20);
  const ids = async (request: { lastEventId?: number; progressReceived?: ReadonlyMap<number, number> } = {}): Promise<string[]> => {
    const items: HistoryStreamItem[] = [];
    for await (const item of await historyStream({ engine: h.engine }, ref, { signal: new AbortController().signal, ...request })) items.push(item);
    return items.flatMap((item) => (item.event === 'progress' ? [`${item.id} (${item.data.stepEventId}.${item.data.seq})`] : item.event === 'history' ? [`${item.id}`] : []));
  };
  const all = await ids();
  // Step 2 reports twice, step 4 once while step 2 still runs: its id lists both.
  assert.equal(all, ['1', '2', '3', '3/2.1 (2.1)', '3/2.2 (2.2)', '4', '5', '5/2.2/4.1 (4.1)', '6', '7', '8']);
  // Resuming after progress 2.1: 2.2 and 4.1 once, and every later history event.
  assert.equal(await ids({ lastEventId: 3, progressReceived: new Map([[2, 1]]) }), ['3/2.2 (2.2)', '4', '5', '5/2.2/4.1 (4.1)', '6', '7', '8']);
  assert.equal(await ids({ lastEventId: 5, progressReceived: new Map([[2, 2], [4, 1]]) }), ['6', '7', '8']);
  h.close();
});

test('stream ids forget a step once it ended', async () => {
  const h = harness([reporter]);
  const ref = await h.run(reporter, { counts: [2, 1] });
  await flush(20);
  const ids: string[] = [];
  for await (const item of await historyStream({ engine: h.engine }, ref, { signal: new AbortController().signal })) {
    if (item.event === 'progress') ids.push(item.id);
  }
  assert.equal(ids, ['3/2.1', '3/2.2', '6/5.1']);
  h.close();
});

test('progress(fields): a JSON object up to MAX_PROGRESS_FIELDS_BYTES, else InvalidProgressError; outside a step, false', () => {
  assert.is(progress({ n: 1 }), false, 'no step attempt is running here');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const tooLarge = { text: 'x'.repeat(MAX_PROGRESS_FIELDS_BYTES) };
  for (const bad of [null, 'text', 3, [1, 2], cyclic, tooLarge, { big: 10n }]) {
    assert.throws(() => progress(bad as Record<string, unknown>), (error: unknown) => error instanceof InvalidProgressError && error.name === 'InvalidProgressError');
  }
  assert.is(progress({ text: 'x'.repeat(MAX_PROGRESS_FIELDS_BYTES - 11) }), false, 'the limit itself is accepted');
  // Bytes, not characters: 'é' is two bytes of UTF-8, '😀' four; `{"text":""}` is 11.
  const half = (MAX_PROGRESS_FIELDS_BYTES - 12) / 2;
  assert.is(progress({ text: `${'é'.repeat(half)}x` }), false, 'exactly the limit');
  assert.throws(() => progress({ text: 'é'.repeat(half + 1) }), (error: unknown) => error instanceof InvalidProgressError);
  assert.throws(() => progress({ text: '😀'.repeat(MAX_PROGRESS_FIELDS_BYTES / 4) }), (error: unknown) => error instanceof InvalidProgressError);
  assert.is(new InvalidProgressError('x').nonRetryable, true, 'a mistake in the code: not retried');
});

test.run();
