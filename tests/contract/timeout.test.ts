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
  expectError(response, 408, 'WorkflowExecutionTimedOutError', { workflowId });
  const status = await statusOf(api, workflowId);
  expectStatus(status, 200);
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
  expectError(response, 408, 'WorkflowExecutionTimedOutError', { workflowId: response.body.workflowId ?? '(missing)' });
  const { workflowId } = response.body;
  await waitUntil(api, workflowId, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId)}/result?v=legacy`);
  expectStatus(result, 200);
  assert.equal(result.body.output, { slept: 600 });
});

test('a timeout long enough answers 200 with the result', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'sleeper', input: { ms: 50 }, timeout: 10 } });
  expectStatus(response, 200);
  assert.equal(response.body.output, { slept: 50 });
});

test.run();
