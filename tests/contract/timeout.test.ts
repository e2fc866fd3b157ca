import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, statusOf, waitUntil, wf } from '../support/contract.js';

/** POST /workflow/run past its timeout: 408, and the run is NOT cancelled. */
const test = contractSuite('POST /workflow/run timeout');

test('timeout 0.2 s on a 1 s run: 408 WorkflowExecutionTimedOutError; the run completes and its result is readable', async ({ api }) => {
  const workflowId = uniqueId('to-sleeper');
  const response = await http(api, 'POST', '/workflow/run', {
    json: { workflowName: 'sleeper', workflowId, input: { ms: 1000 }, timeout: 0.2 },
  });
  const status = await statusOf(api, workflowId);
  expectStatus(status, 200);
  expectError(response, 408, 'WorkflowExecutionTimedOutError', { workflowId, runId: status.body.runId });
  assert.is(response.headers['location'], `${wf(workflowId, status.body.runId)}/result`, 'Location: the pinned result');
  assert.ok(['running', 'completed'].includes(status.body.status), `not cancelled: ${status.body.status}`);
  await waitUntil(api, workflowId, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  expectStatus(result, 200);
  assert.is(result.body.status, 'completed');
  assert.equal(result.body.output, { slept: 1000 });
  assert.is(result.body.runId, status.body.runId);
});

test('without a workflowId the 408 names the generated one, which leads to the result', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'sleeper', input: { ms: 600 }, timeout: 0.1 } });
  expectError(response, 408, 'WorkflowExecutionTimedOutError', { workflowId: response.body.workflowId ?? '(missing)', runId: response.body.runId ?? '(missing)' });
  const { workflowId, runId } = response.body;
  await waitUntil(api, workflowId, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId)}/result?v=legacy`);
  expectStatus(result, 200);
  assert.equal(result.body.output, { slept: 600 });
  // The Location alone leads to the run, long-polled.
  const located = await http(api, 'GET', `${response.headers['location']}?wait=5`);
  expectStatus(located, 200);
  assert.is(located.body.runId, runId);
});

test('a timeout long enough answers 200 with the result', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'sleeper', input: { ms: 50 }, timeout: 10 } });
  expectStatus(response, 200);
  assert.equal(response.body.output, { slept: 50 });
});

test.run();
