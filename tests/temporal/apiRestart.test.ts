import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call, uniqueId, waitForStatus } from '../support/http.js';
import { startCallbackReceiver } from '../support/callbackReceiver.js';
import { eventually } from '../support/eventually.js';

/*
 * docs/reliability.md's promises about restarts, on Temporal: the API server (and its workers) hold no run state, so
 * a run started through one process is found, resumed and finished through the next; a start whose answer was lost
 * is safe to send again with the same workflowId; a run's callback is delivered across the restart.
 */
const restart = suite<{ apis: TestApi[] }>('Temporal: API server restart');

/**
 * The callback receiver is on loopback, which outbound calls refuse unless the allow-list opens it. Every API of the
 * suite gets it: their workers share the catalog's task queue, so any of them still running may take a delivery.
 */
const OUTBOUND = { OUTBOUND_ALLOWLIST: '127.0.0.1' };

restart.before((context) => {
  context.apis = [];
});

restart.after(async (context) => {
  for (const api of context.apis) await api.close().catch(() => {});
});

restart('runs started before an API and worker restart are found, resumed and completed after it; a repeated start is 409', async (context) => {
  const first = await startTestApi(OUTBOUND);
  context.apis.push(first);
  const workflowIds = Array.from({ length: 12 }, (_, index) => uniqueId(`restart-${index}`));
  const started = new Map<string, string>();
  for (const workflowId of workflowIds) {
    const response = await call(first, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} } });
    assert.is(response.status, 200, response.text);
    started.set(workflowId, response.body.runId);
  }
  await first.close();

  const second = await startTestApi(OUTBOUND);
  context.apis.push(second);
  for (const workflowId of workflowIds) {
    const status = await call(second, 'GET', `/workflow/${workflowId}/status`);
    assert.is(status.status, 200);
    assert.is(status.body.runId, started.get(workflowId), 'the same run');
    assert.is(status.body.status, 'running');
    // The client never saw its answer: sending the start again cannot make a second run.
    const again = await call(second, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} } });
    assert.is(again.status, 409);
    assert.is(again.body.error, 'WorkflowAlreadyStartedError');
  }
  for (const workflowId of workflowIds) {
    // The new worker reaches the wait by replaying the run; the reply is buffered if it is not there yet.
    const feedback = await call(second, 'POST', '/workflow/feedback', { json: { workflowId, payload: { ok: workflowId } } });
    assert.is(feedback.status, 200, feedback.text);
  }
  for (const workflowId of workflowIds) {
    await waitForStatus(second, `/workflow/${workflowId}/status`, (status) => status === 'completed', 30_000);
    const result = await call(second, 'GET', `/workflow/${workflowId}/result`);
    assert.is(result.body.runId, started.get(workflowId));
    assert.equal(result.body.output, { reply: { ok: workflowId } });
  }
});

restart('a run keeps its callbackUrl across restarts, and a delivery failing at a restart is retried after it', async (context) => {
  const receiver = await startCallbackReceiver();
  try {
    const env = { WEBHOOK_SIGNING_SECRET: `whsec_${Buffer.from('restart callback signing key!!!!').toString('base64')}`, ...OUTBOUND };
    const first = await startTestApi(env);
    context.apis.push(first);
    const workflowId = uniqueId('restart-callback');
    const path = `/gate/${workflowId}`;
    const started = await call(first, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {}, callbackUrl: receiver.url(path) } });
    assert.is(started.status, 200, started.text);
    await first.close();

    // The run closes under the next API and workers: the callback is stored with the run, not in a process.
    const second = await startTestApi(env);
    context.apis.push(second);
    const feedback = await call(second, 'POST', '/workflow/feedback', { json: { workflowId, payload: { ok: true } } });
    assert.is(feedback.status, 200, feedback.text);
    await receiver.waitForCalls(path, 1);
    // The receiver keeps failing while these API and workers go; the retries are Temporal's, so they outlive them.
    await second.close();

    const third = await startTestApi(env);
    context.apis.push(third);
    receiver.open(path);
    await eventually('the delivery to go on after the restart', () => receiver.calls(path).some((received) => received.answeredWith === 200), {
      timeoutMs: 60_000,
      intervalMs: 100,
    });
    // The gate opened only after the old API and workers were gone: the 200 went to an attempt made after the restart.
    const calls = receiver.calls(path);
    assert.equal(calls.map((received) => received.answeredWith), [...Array.from({ length: calls.length - 1 }, () => 503), 200]);
    const result = await call(third, 'GET', `/workflow/${workflowId}/runs/${started.body.runId}/result`);
    assert.is(result.status, 200, result.text);
    // Each test API has a trace directory of its own, removed as it closes: the destinations are the one difference.
    const withoutTrace = (body: string) => ({ ...JSON.parse(body), trace: null });
    for (const received of calls) {
      assert.is(received.headers['idempotency-key'], `${workflowId}:${started.body.runId}`);
      assert.equal(withoutTrace(received.body), { ...result.body, trace: null });
    }
  } finally {
    await receiver.close();
  }
});

restart.run();
