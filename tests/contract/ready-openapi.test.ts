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
  ['get', '/workflow/{id}/runs/{rid}/trace-log'],
  ['get', '/ready'],
  ['get', '/health'],
  ['get', '/openapi.json'],
  // Metrics in Prometheus text format (docs/operations.md).
  ['get', '/metrics'],
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
    assert.ok(operation.responses?.['200'], `${method.toUpperCase()} ${path} documents its 200`);
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

test.run();
