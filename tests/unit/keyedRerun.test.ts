// A keyed rerun (docs/idempotency.md, docs/api.md Rerun) retried after the run it repeats is gone: the retry still
// gets the run the first request started (the key's record is on it), not a 404 for the repeated run.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFlowgate } from '../../composition/embed/index.js';
import { IdempotencyKeyReusedError, WorkflowNotFoundError } from '../../core/domain/errors.js';
import * as basic from '../fixtures/workflows/basic.js';
import { CapturingLogger } from '../support/logLines.js';

test('a keyed rerun retried after the repeated run was forgotten gets the same run; another request with the key is refused; no key, 404', async () => {
  // The memory engine keeps 2 closed runs: the repeated run is forgotten once 2 more have closed.
  const flowgate = await createFlowgate({ workflows: Object.values(basic), logger: new CapturingLogger(), env: { ENGINE: 'memory', MEMORY_MAX_CLOSED_RUNS: '2' } });
  try {
    const { api } = flowgate;
    const closed = async (workflowId: string) => {
      const result = await api.getResult({ workflowId }, '2', { seconds: 5 });
      assert.is((result as { status: string }).status, 'completed');
    };
    // The repeated run closes (and is forgotten below); the rerun waits for a reply, open, as a recent run is kept.
    const { answer: original } = await api.start({ workflowName: 'awaits_feedback', input: { timeoutMs: 60_000 } });
    await api.sendFeedback(original.workflowId, { ok: true });
    await closed(original.workflowId);
    const ref = { workflowId: original.workflowId, runId: original.runId };
    const first = await api.rerun(ref, {}, { idempotencyKey: 'rerun-key' });
    for (const message of ['a', 'b']) {
      const { answer } = await api.start({ workflowName: 'echo', input: { message } });
      await closed(answer.workflowId);
    }
    await api.getStatus(ref).then(
      () => assert.unreachable('the repeated run should be forgotten by now'),
      (error: unknown) => assert.instance(error, WorkflowNotFoundError),
    );

    const retry = await api.rerun(ref, {}, { idempotencyKey: 'rerun-key' });
    assert.equal(retry, first, 'the same answer, expiry included');
    const input = await api.getInput({ workflowId: first.answer.workflowId, runId: first.answer.runId });
    assert.equal((input as { input: unknown }).input, { timeoutMs: 60_000 }, 'the input of the repeated run');

    await api.rerun(ref, { callbackUrl: 'https://hooks.example.com/done' }, { idempotencyKey: 'rerun-key' }).then(
      () => assert.unreachable('another request with the key'),
      (error: unknown) => assert.instance(error, IdempotencyKeyReusedError),
    );
    await api.rerun(ref, {}, { idempotencyKey: 'never-used' }).then(
      () => assert.unreachable('a key that started nothing'),
      (error: unknown) => assert.instance(error, WorkflowNotFoundError),
    );
    await api.rerun(ref, {}).then(
      () => assert.unreachable('no key'),
      (error: unknown) => assert.instance(error, WorkflowNotFoundError),
    );
    await api.sendFeedback(first.answer.workflowId, { ok: true });
  } finally {
    await flowgate.close();
  }
});

test.run();
