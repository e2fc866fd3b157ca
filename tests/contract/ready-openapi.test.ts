import * as assert from 'uvu/assert';
import { contractSuite, expectStatus, http, keys } from '../support/contract.js';

/** GET /ready, GET /health, GET /openapi.json */
const test = contractSuite('readiness, liveness, OpenAPI');

test('GET /ready: 200 exactly {status: "ready", engine}', async ({ api }) => {
  const response = await http(api, 'GET', '/ready');
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['engine', 'status']);
  assert.is(response.body.status, 'ready');
  assert.is(response.body.engine, api.engine);
});

test('GET /health: 200', async ({ api }) => {
  const response = await http(api, 'GET', '/health');
  expectStatus(response, 200);
  assert.match(response.headers['content-type'] ?? '', /application\/json/);
});

const ENDPOINTS: [string, string][] = [
  ['post', '/workflow/run'],
  ['post', '/workflow'],
  ['get', '/workflow/list'],
  ['post', '/workflow/feedback'],
  ['get', '/workflow/runs'],
  ['get', '/workflow/{id}/result'],
  ['get', '/workflow/{id}/runs/{rid}/result'],
  ['get', '/workflow/{id}/status'],
  ['get', '/workflow/{id}/runs/{rid}/status'],
  ['get', '/workflow/{id}/input'],
  ['get', '/workflow/{id}/runs/{rid}/input'],
  ['get', '/workflow/{id}/history'],
  ['get', '/workflow/{id}/runs/{rid}/history'],
  ['patch', '/workflow/{id}/runs/{rid}/stop'],
  ['patch', '/workflow/{id}/stop'],
  ['post', '/workflow/{id}/runs/{rid}/reset'],
  ['post', '/workflow/{id}/reset'],
  ['post', '/workflow/{id}/runs/{rid}/terminate'],
  // Bulk control (docs/bulk.md).
  ['post', '/workflow/runs/terminate'],
  ['post', '/workflow/runs/cancel'],
  // Rerun (docs/api.md, docs/bulk.md).
  ['post', '/workflow/{id}/runs/{rid}/rerun'],
  ['post', '/workflow/runs/rerun'],
  ['get', '/workflow/{id}/runs/{rid}/trace-log'],
  ['get', '/ready'],
  ['get', '/health'],
  ['get', '/openapi.json'],
  // What the calling API key may do (docs/security.md).
  ['get', '/auth/key'],
  // Metrics in Prometheus text format (docs/operations.md).
  ['get', '/metrics'],
  // Schedules (docs/schedules.md).
  ['post', '/schedules'],
  ['get', '/schedules'],
  ['get', '/schedules/{id}'],
  ['patch', '/schedules/{id}'],
  ['delete', '/schedules/{id}'],
  ['post', '/schedules/{id}/pause'],
  ['post', '/schedules/{id}/unpause'],
  ['post', '/schedules/{id}/trigger'],
  ['post', '/schedules/{id}/backfill'],
];

test('GET /openapi.json: OpenAPI 3.1.0, info.version 1.0.0, an operation for every endpoint', async ({ api }) => {
  const response = await http(api, 'GET', '/openapi.json');
  expectStatus(response, 200);
  assert.match(response.headers['content-type'] ?? '', /application\/json/);
  const document = response.body;
  assert.is(document.openapi, '3.1.0');
  assert.is(document.info.version, '1.0.0');
  assert.type(document.info.title, 'string');
  for (const [method, path] of ENDPOINTS) {
    const operation = document.paths?.[path]?.[method];
    assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
    assert.ok(Object.keys(operation.responses ?? {}).some((status) => status.startsWith('2')), `${method.toUpperCase()} ${path} documents its success`);
  }
  const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item).filter((key) => ['get', 'post', 'patch', 'put', 'delete'].includes(key)).map((method) => `${method} ${path}`),
  );
  assert.equal(documented.sort(), ENDPOINTS.map(([method, path]) => `${method} ${path}`).sort(), 'no undocumented or extra operations');
});

test('the OpenAPI document marks the legacy stop and reset deprecated, and documents the contract errors', async ({ api }) => {
  const { body: document } = await http(api, 'GET', '/openapi.json');
  assert.is(document.paths['/workflow/{id}/stop'].patch.deprecated, true);
  assert.is(document.paths['/workflow/{id}/reset'].post.deprecated, true);
  assert.not.ok(document.paths['/workflow/{id}/runs/{rid}/stop'].patch.deprecated);
  const run = document.paths['/workflow/run'].post.responses;
  for (const status of ['200', '400', '404', '408', '409', '424', '503']) assert.ok(run[status], `POST /workflow/run documents ${status}`);
  const parameters = document.paths['/workflow/runs'].get.parameters.map((parameter: { name: string }) => parameter.name);
  for (const name of ['workflowName', 'catalog', 'status', 'limit', 'pageToken']) assert.ok(parameters.includes(name), `run list documents ${name}`);
  assert.ok(document.components?.securitySchemes, 'the bearer scheme is documented');
  for (const path of ['/ready', '/health', '/openapi.json']) {
    assert.equal(document.paths[path].get.security, [], `${path} needs no token`);
  }
});

test('the OpenAPI document: a relative server, defaulted request fields optional, the two result versions told apart', async ({ api }) => {
  const { body: document } = await http(api, 'GET', '/openapi.json');
  assert.equal(document.servers.map((server: { url: string }) => server.url), ['/'], 'a server URL relative to where the document is served');
  const schemas = document.components.schemas;
  const runRequest = schemas.RunWorkflowRequest;
  assert.equal(runRequest.required.sort(), ['input', 'workflowName'], 'timeout (defaulted) is optional');
  assert.is(runRequest.properties.timeout.default, 30);
  assert.not.ok(schemas.BulkCancelRequest.required?.includes('dryRun'), 'dryRun (defaulted) is optional');
  const limit = document.paths['/workflow/runs'].get.parameters.find((parameter: { name: string }) => parameter.name === 'limit');
  assert.is(limit.required, false);
  // Exactly one of two named shapes; version 2's `v` is a constant the strict legacy shape cannot have.
  assert.equal(schemas.WorkflowResult.oneOf, [
    { $ref: '#/components/schemas/WorkflowResultV2' },
    { $ref: '#/components/schemas/WorkflowResultLegacy' },
  ]);
  assert.is(schemas.WorkflowResultV2.properties.v.const, '2');
  assert.ok(schemas.WorkflowResultV2.required.includes('v'));
  assert.is(schemas.WorkflowResultLegacy.properties.v, undefined);
  assert.is(schemas.WorkflowResultLegacy.additionalProperties, false);
  assert.is(schemas.WorkflowResultLegacy.deprecated, true);
  for (const path of ['/workflow/run', '/workflow/{id}/runs/{rid}/result']) {
    const operation = document.paths[path].post ?? document.paths[path].get;
    assert.equal(operation.responses['200'].content['application/json'].schema, { $ref: '#/components/schemas/WorkflowResult' });
  }
});

test('GET /openapi.json has a strong ETag; If-None-Match with it (or *, or its weak form, or in a list) is 304 without a body', async ({ api }) => {
  const first = await http(api, 'GET', '/openapi.json');
  const etag = first.headers['etag'];
  assert.match(etag ?? '', /^"[A-Za-z0-9_-]+"$/, 'a strong entity tag');
  assert.is((await http(api, 'GET', '/openapi.json')).headers['etag'], etag, 'the same bytes, the same tag');
  assert.is((await http(api, 'HEAD', '/openapi.json')).headers['etag'], etag, 'HEAD too');
  for (const ifNoneMatch of [etag!, `W/${etag}`, '*', `"other", ${etag}`]) {
    for (const method of ['GET', 'HEAD']) {
      const revalidated = await http(api, method, '/openapi.json', { headers: { 'if-none-match': ifNoneMatch } });
      assert.is(revalidated.status, 304, `${method} If-None-Match: ${ifNoneMatch}`);
      assert.is(revalidated.text, '', 'no body');
      assert.is(revalidated.headers['etag'], etag);
      assert.is(revalidated.headers['cache-control'], first.headers['cache-control'], "the 200's freshness");
      assert.is(revalidated.headers['content-length'], undefined, 'no Content-Length: 0 (RFC 9110 8.6: it would not be the 200s)');
      assert.ok(revalidated.headers['x-request-id']);
    }
  }
  const changed = await http(api, 'GET', '/openapi.json', { headers: { 'if-none-match': '"an-older-document"' } });
  expectStatus(changed, 200, 'another tag gets the document');
  assert.is(changed.text, first.text);
});

test('GET /workflow/list publishes each workflow\'s input and output JSON Schema, and the document says so', async ({ api }) => {
  const { body: list } = await http(api, 'GET', '/workflow/list');
  const echo = list.workflows.find((workflow: { name: string }) => workflow.name === 'echo');
  assert.is(echo.inputSchema.type, 'object');
  assert.equal(echo.inputSchema.required, ['message']);
  assert.is(echo.outputSchema.properties.message.type, 'string');
  const { body: document } = await http(api, 'GET', '/openapi.json');
  const entry = document.components.schemas.WorkflowList.properties.workflows.items;
  assert.equal(entry.required.sort(), ['description', 'inputSchema', 'name', 'outputSchema']);
});

test.run();
