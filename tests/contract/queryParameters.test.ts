import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, start, wf } from '../support/contract.js';

/** Query parameters: an unknown one is a 400 naming it, on every endpoint; the document declares each one taken. */
const test = contractSuite('query parameters');

const RID = '2c5ea4c0-4067-11e9-8bad-9b1deb4d3b7d';

interface DocumentedOperation {
  method: string;
  template: string;
  queryParameters: string[];
}

async function documentedOperations(api: Parameters<typeof http>[0]): Promise<DocumentedOperation[]> {
  const document = (await http(api, 'GET', '/openapi.json')).body;
  const operations: DocumentedOperation[] = [];
  for (const [template, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(item)) {
      const parameters = (operation.parameters ?? []) as { name: string; in: string }[];
      operations.push({ method: method.toUpperCase(), template, queryParameters: parameters.filter((p) => p.in === 'query').map((p) => p.name) });
    }
  }
  return operations;
}

test('a typo in a query is refused, not ignored: GET /workflow/runs?workflowNmae=x is 400 naming it', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('qp-typo'));
  const response = await http(api, 'GET', '/workflow/runs?workflowNmae=x');
  expectError(response, 400, 'ValidationError', { workflowId: null });
  assert.match(response.body.message, /unknown query parameter workflowNmae/);
  assert.match(response.body.message, /workflowName, catalog, status, startedBy, scheduleId, limit, pageToken/, 'the message says what the endpoint takes');
  assert.equal(response.body.issues[0].code, 'unrecognized_keys');
  assert.equal(response.body.issues[0].keys, ['workflowNmae']);
  const two = await http(api, 'GET', `${wf(workflowId)}/status?verbose=1&x=2`);
  expectError(two, 400, 'ValidationError', { maybeWorkflowId: workflowId });
  assert.match(two.body.message, /unknown query parameters verbose, x; this endpoint takes no query parameters/);
  // What the endpoint takes is still taken, deprecated spellings included.
  expectStatus(await http(api, 'GET', '/workflow/runs?workflowName=awaits_feedback&status=continued&limit=5'), 200);
  expectStatus(await http(api, 'GET', `${wf(workflowId)}/history?pageSize=5`), 200);
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
  expectStatus(await http(api, 'GET', `${wf(workflowId)}/result?v=legacy&wait=10`), 200);
});

test('every documented operation refuses an unknown query parameter, and names the ones its document declares', async ({ api }) => {
  const operations = await documentedOperations(api);
  assert.ok(operations.length > 20, `the document lists the operations: ${operations.length}`);
  for (const { method, template, queryParameters } of operations) {
    const path = template.replace('{id}', 'qp-unknown').replace('{rid}', RID);
    const response = await http(api, method, `${path}?sortOrder=desc`, method === 'GET' ? {} : { json: {} });
    const where = `${method} ${template}`;
    expectError(response, 400, 'ValidationError', { maybeWorkflowId: 'qp-unknown' });
    assert.match(response.body.message, /unknown query parameter sortOrder; this endpoint takes /, where);
    const named = /takes no query parameters/.test(response.body.message) ? [] : response.body.message.replace(/^.*this endpoint takes /, '').split(', ');
    assert.equal(named, queryParameters, `${where}: the document declares what the endpoint takes`);
  }
});

test.run();
