import * as assert from 'uvu/assert';
import { request as httpRequest } from 'node:http';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, statusOf, waitUntil, wf } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import type { TestApi } from '../support/engines.js';

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

/** A GET whose path is sent as written: URL parsing (undici's, fetch's) would take `%2E` for a dot segment. */
function getAsWritten(api: TestApi, path: string): Promise<{ status: number; body: any }> {
  const base = new URL(api.baseUrl);
  return new Promise((resolve, reject) => {
    const sent = httpRequest({ host: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${path}` }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end();
  });
}

test("the 408's Location reaches a run whose id is `.` or `..`: its dots written %2E", async ({ api }) => {
  for (const workflowId of ['.', '..']) {
    // The ids cannot be made unique: a run of another suite on the shared Temporal server may hold one a moment.
    const response = await eventually(`a run-and-wait of workflow id ${workflowId}`, async () => {
      const answer = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'sleeper', workflowId, input: { ms: 300 }, timeout: 0.05 } });
      return answer.status === 409 ? undefined : answer;
    });
    expectError(response, 408, 'WorkflowExecutionTimedOutError', { workflowId, runId: response.body.runId ?? '(missing)' });
    assert.is(response.headers['location'], `/workflow/${workflowId.replaceAll('.', '%2E')}/runs/${response.body.runId}/result`);
    const located = await getAsWritten(api, `${response.headers['location']}?wait=10`);
    assert.equal([located.status, located.body.workflowId, located.body.runId], [200, workflowId, response.body.runId]);
  }
});

test('a timeout long enough answers 200 with the result', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'sleeper', input: { ms: 50 }, timeout: 10 } });
  expectStatus(response, 200);
  assert.equal(response.body.output, { slept: 50 });
});

test.run();
