import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call, uniqueId, waitForEvent, waitForStatus } from '../support/http.js';
import { executions } from '../fixtures/steps/counted.js';

// Behaviour the issue on Temporal asks to see on a real server, through the HTTP API (FLOWGATE_TEST_ENGINE=temporal).
const temporal = suite<{ api: TestApi }>('Temporal through the API');

temporal.before(async (context) => {
  context.api = await startTestApi();
});

temporal.after(async (context) => {
  await context.api?.close();
});

temporal('reset replays the completed steps: only the steps after the reset point run again', async ({ api }) => {
  const key = uniqueId('reset');
  const first = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'record_pipeline', input: { key } } });
  assert.is(first.status, 200);
  assert.is(first.body.status, 'completed');
  const counts = () => ['fetch_record', 'enrich_record', 'store_record'].map((name) => executions.get(`${name}:${key}`) ?? 0);
  assert.equal(counts(), [1, 1, 1]);

  const reset = await call(api, 'POST', `/workflow/${first.body.workflowId}/runs/${first.body.runId}/reset`, {
    json: { stepName: 'enrich_record', reason: 'prove replay' },
  });
  assert.is(reset.status, 200);
  assert.is.not(reset.body.runId, first.body.runId);
  await waitForStatus(api, `/workflow/${first.body.workflowId}/runs/${reset.body.runId}/status`, (status) => status === 'completed');
  assert.equal(counts(), [1, 1, 2], 'fetch and enrich were replayed, store ran again');
  const result = await call(api, 'GET', `/workflow/${first.body.workflowId}/runs/${reset.body.runId}/result`);
  assert.equal(result.body.output, first.body.output);
  const history = await call(api, 'GET', `/workflow/${first.body.workflowId}/runs/${reset.body.runId}/history?pageSize=200`);
  assert.ok(history.body.events.some((event: { type: string }) => event.type === 'workflow_reset'));
});

temporal('stop lets clean-up run; terminate does not', async ({ api }) => {
  const stopped = uniqueId('stop');
  await call(api, 'POST', '/workflow', { json: { workflowName: 'cleans_up_on_stop', input: {}, workflowId: stopped } });
  await waitForEvent(api, stopped, 'timer_started');
  assert.is((await call(api, 'PATCH', `/workflow/${stopped}/stop`)).status, 200);
  await waitForStatus(api, `/workflow/${stopped}/status`, (status) => status === 'cancelled');
  const stoppedHistory = await call(api, 'GET', `/workflow/${stopped}/history?pageSize=200`);
  assert.ok(stoppedHistory.body.events.some((event: { type: string; stepName?: string }) => event.type === 'step_completed' && event.stepName === 'clean_up'));

  const terminated = uniqueId('terminate');
  const started = await call(api, 'POST', '/workflow', { json: { workflowName: 'cleans_up_on_stop', input: {}, workflowId: terminated } });
  await waitForEvent(api, terminated, 'timer_started');
  const answer = await call(api, 'POST', `/workflow/${terminated}/runs/${started.body.runId}/terminate`, { json: { reason: 'no clean-up' } });
  assert.equal(answer.body, { terminated: true, workflowId: terminated, runId: started.body.runId });
  const terminatedHistory = await call(api, 'GET', `/workflow/${terminated}/history?pageSize=200`);
  assert.is(terminatedHistory.body.workflow.status, 'terminated');
  assert.not.ok(terminatedHistory.body.events.some((event: { stepName?: string }) => event.stepName === 'clean_up'));
});

temporal('a 408 leaves the run going; its result is readable afterwards', async ({ api }) => {
  const workflowId = uniqueId('slow');
  const timedOut = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'sleeper', input: { ms: 1500 }, workflowId, timeout: 0.3 } });
  assert.is(timedOut.status, 408);
  assert.is(timedOut.body.error, 'WorkflowExecutionTimedOutError');
  assert.is(timedOut.body.workflowId, workflowId);
  await waitForStatus(api, `/workflow/${workflowId}/status`, (status) => status === 'completed');
  const result = await call(api, 'GET', `/workflow/${workflowId}/result`);
  assert.equal([result.status, result.body.status, result.body.output], [200, 'completed', { slept: 1500 }]);
});

temporal('a second worker serves another catalog', async ({ api }) => {
  const answer = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'other_only', input: {}, catalog: 'other' } });
  assert.equal([answer.status, answer.body.status, answer.body.output], [200, 'completed', { ok: true }]);
  const status = await call(api, 'GET', `/workflow/${answer.body.workflowId}/status`);
  assert.is(status.body.catalog, 'other');
});

temporal('503 with Retry-After while a catalog has no worker, success once it is up', async ({ api }) => {
  const down = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'idle_only', input: {}, catalog: 'idle' } });
  assert.is(down.status, 503);
  assert.is(down.body.error, 'CatalogNotAvailableError');
  assert.ok(Number(down.headers['retry-after']) > 0);
  await api.startWorker('idle');
  try {
    const up = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'idle_only', input: {}, catalog: 'idle' } });
    assert.equal([up.status, up.body.status], [200, 'completed']);
  } finally {
    await api.stopWorker('idle');
  }
});

temporal('a 30 MiB result round-trips; one over MAX_RESULT_BYTES fails with a clear error', async ({ api }) => {
  const bytes = 30 * 1024 * 1024;
  const big = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'big_result', input: { bytes }, timeout: 120 } });
  assert.is(big.status, 200);
  assert.is(big.body.status, 'completed');
  assert.is(big.body.output.blob.length, bytes);
  const tooBig = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'big_result', input: { bytes: 33 * 1024 * 1024 }, timeout: 120 } });
  assert.is(tooBig.status, 200);
  assert.is(tooBig.body.status, 'failed');
  assert.is(tooBig.body.error.name, 'ResultTooLargeError');
});

temporal.run();
