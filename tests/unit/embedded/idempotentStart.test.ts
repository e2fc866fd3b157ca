import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { WorkflowAlreadyStartedError } from '../../../core/domain/errors.js';
import { harness } from './support.js';

const waits = workflow({
  name: 'waits',
  description: 'Waits for one webhook reply',
  inputSchema: z.object({}),
  outputSchema: z.unknown(),
  fn: async (_input, ctx) => ctx.waitForWebhook(),
});

const keyed = (requestId: string) => ({ key: 'key-digest', fingerprint: 'fp', requestId });

test('a start retried with the same request id returns the run it started, open or closed, with its record', async () => {
  const h = harness([waits]);
  const command = { workflowName: 'waits', catalog: 'main', workflowId: 'wf-keyed', input: {}, idempotency: keyed('req-1') };
  const first = await h.engine.start(command);
  assert.equal(first.idempotency, keyed('req-1'));
  const again = await h.engine.start(command);
  assert.is(again.runId, first.runId);
  await h.engine.deliverFeedback('wf-keyed', { ok: true });
  await h.outcome(first);
  const afterClose = await h.engine.start(command);
  assert.is(afterClose.runId, first.runId, 'closed: still the same run, not a new one');
  assert.is(afterClose.status, 'completed');
  h.close();
});

test('another request id while the run is open is WorkflowAlreadyStartedError; once closed it starts a new run', async () => {
  const h = harness([waits]);
  const first = await h.engine.start({ workflowName: 'waits', catalog: 'main', workflowId: 'wf-other', input: {}, idempotency: keyed('a') });
  try {
    await h.engine.start({ workflowName: 'waits', catalog: 'main', workflowId: 'wf-other', input: {}, idempotency: keyed('b') });
    assert.unreachable('a second start of an open id');
  } catch (error) {
    assert.instance(error, WorkflowAlreadyStartedError);
  }
  await h.engine.terminate(first, 'done');
  const second = await h.engine.start({ workflowName: 'waits', catalog: 'main', workflowId: 'wf-other', input: {}, idempotency: keyed('b') });
  assert.is.not(second.runId, first.runId);
  const plain = await h.engine.describe({ workflowId: 'wf-other', runId: second.runId });
  assert.equal(plain.idempotency, keyed('b'), 'describe reports the record too');
  h.close();
});

test.run();
