import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call, uniqueId, waitForStatus } from '../support/http.js';

/*
 * docs/reliability.md's promises about restarts, on Temporal: the API server (and its workers) hold no run state, so
 * a run started through one process is found, resumed and finished through the next; a start whose answer was lost
 * is safe to send again with the same workflowId.
 */
const restart = suite<{ apis: TestApi[] }>('Temporal: API server restart');

restart.before((context) => {
  context.apis = [];
});

restart.after(async (context) => {
  for (const api of context.apis) await api.close().catch(() => {});
});

restart('runs started before an API and worker restart are found, resumed and completed after it; a repeated start is 409', async (context) => {
  const first = await startTestApi();
  context.apis.push(first);
  const workflowIds = Array.from({ length: 12 }, (_, index) => uniqueId(`restart-${index}`));
  const started = new Map<string, string>();
  for (const workflowId of workflowIds) {
    const response = await call(first, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} } });
    assert.is(response.status, 200, response.text);
    started.set(workflowId, response.body.runId);
  }
  await first.close();

  const second = await startTestApi();
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

restart.run();
