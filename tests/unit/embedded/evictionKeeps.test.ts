import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { getInput } from '../../../core/useCases/getInput.js';
import { harness } from './support.js';
import { rejection } from '../../support/rejection.js';

/*
 * What evicting closed runs (MEMORY_MAX_CLOSED_RUNS, MEMORY_MAX_CLOSED_BYTES) must not take: the original input of a
 * continue-as-new chain while any run of the chain is kept, and an Idempotency-Key's record until the key expires.
 */

const countdown = workflow({
  name: 'countdown',
  description: 'Continues as new until it reaches zero',
  inputSchema: z.object({ left: z.number(), tag: z.string() }),
  outputSchema: z.unknown(),
  fn: async ({ left, tag }, ctx) => (left === 0 ? { done: tag } : ctx.continueAsNew({ left: left - 1, tag: `${tag}+` })),
});
const echo = workflow({
  name: 'echo',
  description: 'Returns its input',
  inputSchema: z.unknown(),
  outputSchema: z.unknown(),
  fn: async (input) => input,
});

const HOUR_MS = 3_600_000;
const keyed = (requestId: string, key = `key-${requestId}`) => ({ key, fingerprint: 'fp', requestId });

test('the original input of a continue-as-new chain stays readable while any run of the chain is kept', async () => {
  const h = harness([countdown, echo], { maxClosedRuns: 3 });
  const first = await h.run(countdown, { left: 4, tag: 'original' }, 'chain');
  const last = await h.outcome(first);
  assert.equal(last.output, { done: 'original++++' });
  assert.is((await rejection(h.engine.describe(first))).name, 'WorkflowNotFoundError', 'the first run was evicted');

  const view = await getInput({ engine: h.engine }, { workflowId: 'chain' });
  assert.equal(view, { workflowId: 'chain', runId: first.runId, input: { left: 4, tag: 'original' } });
  assert.equal(await h.engine.getInput({ workflowId: 'chain', runId: last.run.runId }), { left: 0, tag: 'original++++' }, 'a kept run: its own input');

  for (let index = 0; index < 3; index += 1) await h.outcome(await h.run(echo, { index }));
  assert.is((await rejection(getInput({ engine: h.engine }, { workflowId: 'chain' }))).name, 'WorkflowNotFoundError', 'the whole chain is gone now');
  h.close();
});

test('a keyed run evicted by count keeps its key record: its description and outcome answer until the key expires', async () => {
  const h = harness([echo], { maxClosedRuns: 2, idempotencyRetentionMs: HOUR_MS });
  const run = await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'keyed', input: { hello: 1 }, idempotency: keyed('r1') });
  await h.outcome(run);
  for (let index = 0; index < 5; index += 1) await h.outcome(await h.run(echo, { index }));
  assert.is(h.engine.usage().closedRuns, 2, 'the keyed run is no longer among the closed runs kept');

  const latest = await h.engine.describe({ workflowId: 'keyed' });
  assert.is(latest.runId, run.runId);
  assert.is(latest.status, 'completed');
  assert.equal(latest.idempotency, keyed('r1'));
  assert.is((await h.engine.describe({ workflowId: 'keyed', runId: run.runId })).runId, run.runId);
  const outcome = await h.engine.awaitOutcome({ workflowId: 'keyed', runId: run.runId }, { timeoutMs: 0 });
  assert.equal(outcome?.output, { hello: 1 });
  assert.equal((await h.engine.getOutcome({ workflowId: 'keyed' })).output, { hello: 1 });
  const retried = await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'keyed', input: { hello: 1 }, idempotency: keyed('r1') });
  assert.is(retried.runId, run.runId, 'the same start request answers the run it made');

  await h.clock.advance(HOUR_MS + 1000);
  assert.is((await rejection(h.engine.describe({ workflowId: 'keyed' }))).name, 'WorkflowNotFoundError', 'expired: forgotten');
  h.close();
});

test('a new run of the id replaces its key record', async () => {
  const h = harness([echo], { maxClosedRuns: 1, idempotencyRetentionMs: HOUR_MS });
  const keyedRun = await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'reused', input: {}, idempotency: keyed('r1') });
  await h.outcome(keyedRun);
  const plain = await h.run(echo, { plain: true }, 'reused');
  await h.outcome(plain);
  await h.outcome(await h.run(echo, {}));
  assert.is((await rejection(h.engine.describe({ workflowId: 'reused' }))).name, 'WorkflowNotFoundError', 'the unkeyed run was the latest');
  assert.equal(h.engine.usage().keyRecords, 0);
  h.close();
});

test('key records are bounded on their own: past maxIdempotencyBytes a new keyed start is IdempotencyStoreFullError until one expires', async () => {
  const h = harness([echo], { maxClosedRuns: 1, idempotencyRetentionMs: HOUR_MS, maxIdempotencyBytes: 3000 });
  for (let index = 0; index < 2; index += 1) {
    await h.outcome(await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: `k${index}`, input: {}, idempotency: keyed(`r${index}`) }));
    await h.clock.advance(60_000);
  }
  const full = await rejection(h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'k2', input: {}, idempotency: keyed('r2') }));
  assert.is(full.name, 'IdempotencyStoreFullError');
  assert.ok(full.retryAfterSeconds !== undefined && full.retryAfterSeconds > 3000 && full.retryAfterSeconds <= 3600, `retry after ${full.retryAfterSeconds}`);
  assert.match(full.message, /MEMORY_MAX_IDEMPOTENCY_BYTES/);
  const unkeyed = await h.run(echo, {}, 'k2');
  assert.ok(unkeyed.runId, 'a start without a key is not refused');
  assert.is((await h.engine.describe({ workflowId: 'k0' })).status, 'completed', 'nothing was dropped to make room');

  await h.clock.advance(HOUR_MS - 60_000);
  const later = await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'k3', input: {}, idempotency: keyed('r3') });
  assert.ok(later.runId, 'the oldest key expired and made room');
  h.close();
});

test('the result a key answers with counts against its bytes', async () => {
  const h = harness([echo], { maxClosedRuns: 1, idempotencyRetentionMs: HOUR_MS, maxIdempotencyBytes: 50_000 });
  await h.outcome(await h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'big', input: { blob: 'b'.repeat(60_000) }, idempotency: keyed('r1') }));
  assert.ok(h.engine.usage().keyRecordBytes > 60_000);
  assert.is((await rejection(h.engine.start({ workflowName: 'echo', catalog: 'main', workflowId: 'next', input: {}, idempotency: keyed('r2') }))).name, 'IdempotencyStoreFullError');
  h.close();
});

test.run();
