import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { step, workflow } from '../../../core/definition/index.js';
import type { FlowgateError } from '../../../core/domain/errors.js';
import { EmbeddedEngine } from '../../../adapters/embedded/index.js';
import { eventTypes, flush, harness, historyEvents } from './support.js';
import { rejection } from '../../support/rejection.js';

/*
 * The embedded engine's memory is bounded by bytes, not only by counts (docs/reliability.md): a run's history has a
 * byte cap, closed runs are evicted by their total bytes, and a payload is kept once however many places show it.
 */

const echo = step({ name: 'echo', fn: async (value: unknown) => value });
const passThrough = workflow({
  name: 'pass_through',
  description: 'Hands its input to a step and returns what the step returns',
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  fn: async (input) => echo(input),
});
const napper = workflow({
  name: 'napper',
  description: 'Sleeps an hour and never waits for feedback',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    await ctx.sleep(3_600_000);
    return { slept: true };
  },
});

const MiB = 1024 * 1024;
/** A JSON value of about `bytes` bytes once encoded. */
const blob = (bytes: number, tag = 'x'): { tag: string; text: string } => ({ tag, text: 'a'.repeat(bytes) });

test('a history past maxHistoryBytes terminates its run with HistorySizeLimitExceededError; later feedback is 409', async () => {
  const h = harness([napper], { maxHistoryBytes: 1 * MiB, historyWarnBytes: 300_000 });
  const ref = await h.run(napper, {});
  await flush();
  const accepted: number[] = [];
  let refused: FlowgateError | undefined;
  for (let index = 0; index < 30; index += 1) {
    try {
      await h.engine.deliverFeedback(ref.workflowId, blob(100_000, String(index)));
      accepted.push(index);
    } catch (error) {
      refused = error as FlowgateError;
      break;
    }
  }
  // Ten replies of 100 kB stay under 1 MiB; the one that crosses it is recorded, then the run is terminated.
  assert.is(accepted.length, 11, `accepted ${accepted.length}`);
  assert.is(refused?.name, 'WorkflowClosedError');
  await flush();
  const outcome = await h.engine.getOutcome(ref);
  assert.is(outcome.run.status, 'terminated');
  assert.is(outcome.failure?.name, 'HistorySizeLimitExceededError');
  assert.match(outcome.failure?.message ?? '', /history .*1048576 bytes/);
  assert.is((await eventTypes(h.engine, ref)).at(-1), 'workflow_terminated');
  const warnings = h.logger.entries.filter((line) => line.level === 'warn' && /history/.test(line.message));
  assert.equal(
    warnings.map((line) => line.message.includes('is large')),
    [true, false],
    'one warning when the history passed historyWarnBytes, one when the run was terminated',
  );
  assert.is(warnings[0]?.fields?.runId, ref.runId);
  assert.is((await rejection(h.engine.deliverFeedback(ref.workflowId, { late: true }))).name, 'WorkflowClosedError');
  h.close();
});

test('a step result that takes the history past the cap terminates the run as well', async () => {
  const h = harness([passThrough], { maxHistoryBytes: 1 * MiB });
  const ref = await h.run(passThrough, blob(400_000));
  const outcome = await h.outcome(ref);
  // workflow_started and step_scheduled hold 400 kB each; the step's result is the third.
  assert.is(outcome.run.status, 'terminated');
  assert.is(outcome.failure?.name, 'HistorySizeLimitExceededError');
  h.close();
});

test('closed runs are evicted by total bytes, oldest first; newer runs stay readable', async () => {
  const h = harness([passThrough], { maxClosedBytes: 3 * MiB });
  const refs = [];
  for (let index = 0; index < 8; index += 1) {
    const ref = await h.run(passThrough, blob(700_000, String(index)));
    await h.outcome(ref);
    refs.push(ref);
  }
  const usage = h.engine.usage();
  assert.ok(usage.closedBytes <= 3 * MiB, `closed bytes ${usage.closedBytes} within the limit`);
  assert.is(usage.closedRuns, 4, 'four runs of about 700 kB fit in 3 MiB');
  for (const ref of refs.slice(0, 4)) assert.is((await rejection(h.engine.describe(ref))).name, 'WorkflowNotFoundError');
  for (const ref of refs.slice(4)) {
    assert.is((await h.engine.describe(ref)).status, 'completed');
    assert.equal(((await h.engine.getOutcome(ref)).output as { text: string }).text.length, 700_000);
  }
  h.close();
});

test('a payload is kept once: an input passed through a step and returned costs the run its size once', async () => {
  const h = harness([passThrough]);
  const input = blob(1_500_000);
  const ref = await h.run(passThrough, input);
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, input);
  const { closedBytes } = h.engine.usage();
  // Four places show it (workflow_started, step_scheduled, step_completed, workflow_completed; the trace and the
  // run record share the same copies): one copy is kept, plus a little per event.
  assert.ok(closedBytes >= 1_500_000 && closedBytes < 1_600_000, `closed bytes ${closedBytes}`);
  const events = await historyEvents(h.engine, ref);
  assert.equal(events.find((event) => event.type === 'step_completed')?.attributes.output, input, 'history shows each place in full');
  assert.equal(h.closedRuns[0]?.steps[0]?.output, input, 'and so does the trace');
  h.close();
});

test('many 1.9 MB inputs: the closed runs kept stay within maxClosedBytes', async () => {
  const limit = 16 * MiB;
  const h = harness([passThrough], { maxClosedBytes: limit });
  let peak = 0;
  for (let index = 0; index < 40; index += 1) {
    await h.outcome(await h.run(passThrough, blob(1_900_000, String(index))));
    peak = Math.max(peak, h.engine.usage().closedBytes);
  }
  assert.ok(peak <= limit, `peak ${peak} <= ${limit}`);
  assert.is(h.engine.usage().closedRuns, 8);
  h.close();
});

test('the byte limits are checked: each a positive integer, the warning below the cap', () => {
  const base = { clock: { now: () => 0, setTimer: () => () => {} }, ids: { uuid: () => 'x' }, logger: { info() {}, warn() {}, error() {} }, webhookSender: { send: async () => {} } };
  for (const [override, pattern] of [
    [{ maxClosedBytes: 0 }, /options\.maxClosedBytes/],
    [{ maxHistoryBytes: 1.5 }, /options\.maxHistoryBytes/],
    [{ historyWarnBytes: -1 }, /options\.historyWarnBytes/],
    [{ maxHistoryBytes: 1000, historyWarnBytes: 2000 }, /historyWarnBytes.*maxHistoryBytes/],
  ] as const) {
    assert.throws(() => new EmbeddedEngine({ ...base, ...override }), pattern);
  }
});

test.run();
