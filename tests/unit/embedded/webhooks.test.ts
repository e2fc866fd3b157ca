import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { WebhookTimeoutError, workflow } from '../../../core/definition/index.js';
import { eventTypes, flush, harness } from './support.js';
import { rejection } from '../../support/rejection.js';

const approval = workflow({
  name: 'approval',
  description: 'Calls a webhook, then waits for two replies',
  inputSchema: z.object({ url: z.string().optional(), timeoutMs: z.number().optional() }),
  outputSchema: z.unknown(),
  fn: async ({ url, timeoutMs }, ctx) => {
    const first = await ctx.waitForWebhook({ ...(url ? { url } : {}), payload: { question: 'approve?' }, ...(timeoutMs ? { timeoutMs } : {}) });
    const second = await ctx.waitForWebhook({ ...(url ? { url } : {}) });
    return { first, second };
  },
});
const timesOut = workflow({
  name: 'times_out',
  description: 'Reports a webhook timeout',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => {
    try {
      return await ctx.waitForWebhook({ timeoutMs: 500 });
    } catch (error) {
      return { timedOut: error instanceof WebhookTimeoutError, message: (error as Error).message };
    }
  },
});

test('with a url, the internal webhook step sends the call, then the wait takes the reply', async () => {
  const h = harness([approval]);
  const ref = await h.run(approval, { url: 'https://example.test/hook' });
  await flush();
  assert.equal(h.webhooks.calls, [
    {
      url: 'https://example.test/hook',
      workflowId: ref.workflowId,
      runId: ref.runId,
      workflowName: 'approval',
      payload: { question: 'approve?' },
      idempotencyKey: `${ref.workflowId}:${ref.runId}:webhook-1`,
    },
  ]);
  assert.equal(await h.engine.deliverFeedback(ref.workflowId, { ok: 1 }), ref);
  await flush();
  assert.is(h.webhooks.calls[1]?.idempotencyKey, `${ref.workflowId}:${ref.runId}:webhook-2`);
  assert.is(h.webhooks.calls[1]?.payload, null);
  await h.engine.deliverFeedback(ref.workflowId, { ok: 2 });
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, { first: { ok: 1 }, second: { ok: 2 } });
  const { page } = await h.engine.historyPage(ref, { pageSize: 50 });
  const scheduled = page.events.find((e) => e.type === 'step_scheduled');
  assert.is(scheduled?.stepName, 'webhook');
  assert.is(scheduled?.attributes.kind, 'internal_step');
  assert.is(scheduled?.attributes.activityType, 'approval#webhook');
  assert.equal(page.events.find((e) => e.type === 'signal_received')?.attributes, { signalName: 'feedback', payload: { ok: 1 } });
  assert.equal(h.closedRuns[0]?.steps.map((s) => [s.name, s.kind]), [['webhook', 'internal_step'], ['webhook', 'internal_step']]);
  h.close();
});

test('a failing webhook target is retried with backoff (500 ms, doubling)', async () => {
  const h = harness([approval]);
  h.webhooks.failures = 2;
  const ref = await h.run(approval, { url: 'https://example.test/hook' });
  await flush();
  assert.is(h.webhooks.calls.length, 1);
  await h.clock.advance(499);
  assert.is(h.webhooks.calls.length, 1);
  await h.clock.advance(1);
  assert.is(h.webhooks.calls.length, 2);
  await h.clock.advance(1000);
  assert.is(h.webhooks.calls.length, 3);
  assert.ok(h.webhooks.calls.every((c) => c.idempotencyKey.endsWith('webhook-1')), 'retries keep the idempotency key');
  await h.engine.deliverFeedback(ref.workflowId, 'a');
  await flush();
  await h.engine.deliverFeedback(ref.workflowId, 'b');
  assert.is((await h.outcome(ref)).run.status, 'completed');
  h.close();
});

test('feedback delivered before the wait is buffered, first in first out', async () => {
  const h = harness([approval]);
  const ref = await h.run(approval, {});
  await h.engine.deliverFeedback(ref.workflowId, 'early-1');
  await h.engine.deliverFeedback(ref.workflowId, 'early-2');
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, { first: 'early-1', second: 'early-2' });
  assert.equal((await eventTypes(h.engine, ref)).filter((t) => t === 'signal_received').length, 2);
  h.close();
});

test('a wait with a time limit fails with WebhookTimeoutError', async () => {
  const h = harness([timesOut]);
  const ref = await h.run(timesOut, {});
  await h.clock.advance(499);
  assert.is((await h.engine.describe(ref)).status, 'running');
  await h.clock.advance(1);
  const outcome = await h.engine.getOutcome(ref);
  assert.equal(outcome.output, { timedOut: true, message: 'No webhook reply arrived within 500 ms' });
  h.close();
});

test('a cancelled wait rejects with CancelledError and the run ends cancelled', async () => {
  const h = harness([approval]);
  const ref = await h.run(approval, {});
  await flush();
  await h.engine.cancel(ref);
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'cancelled');
  h.close();
});

const typedReplies = workflow({
  name: 'typed_replies',
  description: 'Waits twice for a reply its feedbackSchema parses; reports what each wait gave or threw',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  feedbackSchema: z.object({ approved: z.boolean(), note: z.string().default('none') }),
  fn: async (_input, ctx) => {
    const first = await ctx.waitForWebhook();
    const second = await ctx.waitForWebhook().catch((error: Error) => ({ refused: error.name, message: error.message }));
    return { first, second };
  },
});

test('the engine hands the code its reply parsed by the feedbackSchema; a reply the schema refuses throws FeedbackValidationError', async () => {
  // The API refuses such a reply before it reaches the engine (tests/contract/feedbackSchema.test.ts); an engine
  // given one anyway (workers of two releases) throws in the wait, where the code can catch it.
  const h = harness([typedReplies]);
  const ref = await h.run(typedReplies, {});
  await h.engine.deliverFeedback(ref.workflowId, { approved: true });
  await h.engine.deliverFeedback(ref.workflowId, { approved: 'yes' });
  const outcome = await h.outcome(ref);
  assert.equal(outcome.output, {
    first: { approved: true, note: 'none' },
    second: { refused: 'FeedbackValidationError', message: 'Invalid feedback for workflow typed_replies: approved: Invalid input: expected boolean, received string' },
  });
  h.close();
});

test('feedback for an unknown id is WorkflowNotFoundError, for a closed run WorkflowClosedError', async () => {
  const h = harness([timesOut]);
  const unknown = await rejection(h.engine.deliverFeedback('ghost', {}));
  assert.is(unknown.name, 'WorkflowNotFoundError');
  assert.is(unknown.workflowId, 'ghost');
  const ref = await h.run(timesOut, {});
  await h.engine.deliverFeedback(ref.workflowId, { answer: 'yes' });
  assert.equal((await h.outcome(ref)).output, { answer: 'yes' });
  const closed = await rejection(h.engine.deliverFeedback(ref.workflowId, {}));
  assert.is(closed.name, 'WorkflowClosedError');
  assert.is(closed.workflowId, ref.workflowId);
  h.close();
});

test('a malformed wait request fails the run with a clear error', async () => {
  const malformed = workflow({
    name: 'malformed_wait',
    description: 'Asks for a wait the engine refuses',
    inputSchema: z.object({ which: z.enum(['url', 'timeout', 'endless', 'sleep']) }),
    outputSchema: z.unknown(),
    fn: async ({ which }, ctx) => {
      if (which === 'sleep') return ctx.sleep(Number.POSITIVE_INFINITY);
      return ctx.waitForWebhook(which === 'url' ? { url: '' } : { timeoutMs: which === 'endless' ? Number.POSITIVE_INFINITY : -5 });
    },
  });
  const h = harness([malformed]);
  const badUrl = await h.outcome(await h.run(malformed, { which: 'url' }));
  assert.equal(badUrl.failure, { name: 'TypeError', message: 'waitForWebhook: url must be a non-empty string' });
  const badTimeout = await h.outcome(await h.run(malformed, { which: 'timeout' }));
  assert.equal(badTimeout.failure, {
    name: 'RangeError',
    message: 'waitForWebhook: timeoutMs must be a finite positive number (leave it out to wait without a limit), got -5',
  });
  // Kept as JSON, an infinite due time was null, and a restart fired it at once: refused like any bad limit.
  const endless = await h.outcome(await h.run(malformed, { which: 'endless' }));
  assert.match(endless.failure!.message, /timeoutMs must be a finite positive number .*got Infinity$/);
  const forever = await h.outcome(await h.run(malformed, { which: 'sleep' }));
  assert.equal(forever.failure, { name: 'RangeError', message: 'sleep: ms must be a finite number >= 0, got Infinity' });
  assert.is(h.webhooks.calls.length, 0);
  h.close();
});

test('an engine without a webhook sender fails a run that calls a webhook at once, saying how to give one', async () => {
  const h = harness([approval], { webhookSender: undefined });
  const ref = await h.run(approval, { url: 'https://example.test/hook' });
  const outcome = await h.outcome(ref);
  assert.is(outcome.run.status, 'failed');
  assert.is(outcome.failure?.name, 'WebhookSenderMissingError');
  assert.is(outcome.failure?.activityType, 'approval#webhook');
  assert.is(outcome.failure?.retryable, false);
  const cause = outcome.failure;
  assert.match(cause?.message ?? '', /workflow approval called ctx\.waitForWebhook\(\{ url: "https:\/\/example\.test\/hook" \}\), but this engine has no webhook sender/);
  assert.match(cause?.message ?? '', /webhookSender option/);
  const attempts = (await eventTypes(h.engine, ref)).filter((type) => type === 'step_started');
  assert.is(attempts.length, 1, 'not retried: nothing would change');
  h.close();
});

test('an engine without a webhook sender still runs waits without a url', async () => {
  const h = harness([approval], { webhookSender: undefined });
  const ref = await h.run(approval, {});
  await flush();
  await h.engine.deliverFeedback(ref.workflowId, { ok: 1 });
  await h.engine.deliverFeedback(ref.workflowId, { ok: 2 });
  assert.equal((await h.outcome(ref)).output, { first: { ok: 1 }, second: { ok: 2 } });
  h.close();
});

test.run();
