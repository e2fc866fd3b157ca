import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHttpApp, type HttpAppOptions } from '../../../adapters/http/index.js';
import { workflowIdProblem } from '../../../core/domain/ids.js';
import { buildOpenApiDocument } from '../../../adapters/http/openapi.js';
import { defineRoute } from '../../../adapters/http/route.js';
import { RecordingApi, SequentialIds } from './fakeApi.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { CapturingLogger } from '../../support/logLines.js';

/* The OpenAPI document is generated from the route table; these tests pin what it must say. */

type Json = Record<string, any>;

function appWith(options: Partial<HttpAppOptions> = {}) {
  return createHttpApp({ api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, ...options });
}

const document = appWith().openApiDocument as Json;

/** The document of the real route table plus one GET route that declares the request header `name`. */
function createHttpAppWithRouteHeader(name: string): unknown {
  const probe = defineRoute({
    method: 'GET',
    path: '/probe',
    operationId: 'probe',
    summary: 'probe',
    tags: ['system'],
    requestHeaders: [{ name, description: 'a header' }],
    responses: { 200: { description: 'ok' } },
    handle: async () => ({ kind: 'text', status: 200, body: '', contentType: 'text/plain' }),
  });
  return buildOpenApiDocument([...appWith().routes, probe]);
}
const schemas = document.components.schemas as Record<string, Json>;

function operations(): { method: string; path: string; operation: Json }[] {
  return Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ method: method.toUpperCase(), path, operation })),
  );
}

function resolve(reference: string): Json | undefined {
  const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(reference) ?? [];
  return section && name ? document.components[section]?.[name] : undefined;
}

/** The brief's endpoint list, written out: a route dropped from the table fails here, not in production. */
const ENDPOINTS = [
  'POST /workflow/run',
  'POST /workflow',
  'GET /workflow/list',
  'POST /workflow/feedback',
  'GET /workflow/runs',
  'GET /workflow/{id}/result',
  'GET /workflow/{id}/runs/{rid}/result',
  'GET /workflow/{id}/status',
  'GET /workflow/{id}/runs/{rid}/status',
  'GET /workflow/{id}/input',
  'GET /workflow/{id}/runs/{rid}/input',
  'GET /workflow/{id}/history',
  'GET /workflow/{id}/runs/{rid}/history',
  'PATCH /workflow/{id}/runs/{rid}/stop',
  'PATCH /workflow/{id}/stop',
  'POST /workflow/{id}/runs/{rid}/reset',
  'POST /workflow/{id}/reset',
  'POST /workflow/{id}/runs/{rid}/terminate',
  // Bulk control (docs/bulk.md).
  'POST /workflow/runs/terminate',
  'POST /workflow/runs/cancel',
  // Rerun (docs/api.md, docs/bulk.md).
  'POST /workflow/{id}/runs/{rid}/rerun',
  'POST /workflow/runs/rerun',
  'GET /workflow/{id}/runs/{rid}/trace-log',
  'GET /ready',
  'GET /health',
  'GET /auth/key',
  'GET /openapi.json',
  // Metrics in Prometheus text format (docs/operations.md).
  'GET /metrics',
  // Schedules (docs/schedules.md).
  'POST /schedules',
  'GET /schedules',
  'GET /schedules/{id}',
  'PATCH /schedules/{id}',
  'DELETE /schedules/{id}',
  'POST /schedules/{id}/pause',
  'POST /schedules/{id}/unpause',
  'POST /schedules/{id}/trigger',
  'POST /schedules/{id}/backfill',
];
const PUBLIC = ['GET /ready', 'GET /health', 'GET /openapi.json'];
const DEPRECATED = ['PATCH /workflow/{id}/stop', 'POST /workflow/{id}/reset'];

test('an OpenAPI 3.1 document, version 1.0.0, with a bearer security scheme', () => {
  assert.is(document.openapi, '3.1.0');
  assert.is(document.info.title, 'flowgate');
  assert.is(document.info.version, '1.0.0');
  assert.equal(document.components.securitySchemes.bearerAuth, { ...document.components.securitySchemes.bearerAuth, type: 'http', scheme: 'bearer' });
  assert.equal(document.security, [{ bearerAuth: [] }]);
});

test('every endpoint, and nothing else, each from the route table with a unique operationId', () => {
  const app = appWith();
  const documented = operations().map(({ method, path }) => `${method} ${path}`);
  assert.equal([...documented].sort(), [...ENDPOINTS].sort());
  assert.equal([...app.routes.map((route) => `${route.method} ${route.path}`)].sort(), [...ENDPOINTS].sort());
  for (const route of app.routes) {
    assert.is(document.paths[route.path][route.method.toLowerCase()].operationId, route.operationId);
  }
  const ids = operations().map(({ operation }) => operation.operationId);
  assert.is(new Set(ids).size, ids.length);
});

test('public operations need no token; every other one names its scope and documents 401 with WWW-Authenticate and 403', () => {
  const scopes: Record<string, string> = {};
  for (const { method, path, operation } of operations()) {
    const name = `${method} ${path}`;
    if (PUBLIC.includes(name)) {
      assert.equal(operation.security, [], name);
      assert.not.ok(operation.responses['401'], name);
      assert.not.ok(operation.responses['403'], name);
    } else if (name === 'GET /auth/key') {
      // Any valid key may ask what it may do: a key, no scope, so never a 403.
      assert.equal(operation.security, [{ bearerAuth: [] }], name);
      assert.ok(operation.responses['401']?.headers?.['WWW-Authenticate'], name);
      assert.not.ok(operation.responses['403'], name);
    } else {
      assert.is(operation.security.length, 1, name);
      scopes[name] = operation.security[0].bearerAuth.join(',');
      assert.ok(operation.responses['401']?.headers?.['WWW-Authenticate'], name);
      assert.match(operation.responses['403']?.description ?? '', new RegExp(`^ForbiddenError: the API key lacks the \`${scopes[name]}\` scope`), name);
    }
  }
  // docs/security.md: read is every GET; start, control and admin as the table says.
  for (const [name, scope] of Object.entries(scopes)) {
    const expected = name === 'GET /metrics' ? 'admin' : name.startsWith('GET ') ? 'read'
      : ['POST /workflow/run', 'POST /workflow', 'POST /workflow/{id}/runs/{rid}/rerun'].includes(name) ? 'start' : 'control';
    assert.is(scope, expected, name);
  }
});

test('every documented status has a JSON schema that resolves; errors use the error shapes; X-Request-Id everywhere', () => {
  for (const { method, path, operation } of operations()) {
    assert.ok(Object.keys(operation.responses).some((status) => status.startsWith('2')), `${method} ${path} documents its success`);
    assert.ok(operation.responses['500'], `${method} ${path} documents 500`);
    for (const [status, response] of Object.entries<Json>(operation.responses)) {
      const where = `${method} ${path} ${status}`;
      assert.ok(response.description, `${where} has a description`);
      assert.ok(response.headers['X-Request-Id'], `${where} documents X-Request-Id`);
      // The metrics are Prometheus' text format: their 200 is the one body that is not JSON.
      if (path === '/metrics' && status === '200') {
        assert.equal(Object.keys(response.content), ['text/plain'], `${where} is plain text`);
        continue;
      }
      // A revalidated copy of the document: no body at all.
      if (path === '/openapi.json' && status === '304') {
        assert.is(response.content, undefined, `${where} has no body`);
        assert.ok(response.headers['ETag'], `${where} documents ETag`);
        continue;
      }
      // A reconnect to a closed history stream whose client has every event: no content.
      if (status === '204') {
        assert.is(response.content, undefined, `${where} has no body`);
        continue;
      }
      const reference = response.content?.['application/json']?.schema?.$ref as string | undefined;
      assert.ok(reference, `${where} has a JSON schema`);
      assert.ok(resolve(reference), `${where}: ${reference} resolves`);
      if (Number(status) >= 400 && !(path === '/ready' && status === '503')) {
        assert.ok(['#/components/schemas/Error', '#/components/schemas/BadRequest'].includes(reference), `${where} is an error body (${reference})`);
      }
      if (status === '503') assert.ok(response.headers['Retry-After'], `${where} documents Retry-After`);
    }
  }
});

test('no dangling $ref anywhere in the document', () => {
  const references = [...JSON.stringify(document).matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]!);
  assert.ok(references.length > 50);
  for (const reference of new Set(references)) assert.ok(resolve(reference), `${reference} resolves`);
  // zod emits each registry entry as a standalone document; inside OpenAPI a `$id` would re-base relative refs.
  for (const [name, schema] of Object.entries(document.components.schemas as Record<string, Record<string, unknown>>)) {
    assert.is(schema.$schema, undefined, `${name} $schema`);
    assert.is(schema.$id, undefined, `${name} $id`);
  }
});

test('transport-level answers: 400 where there is input, 413 and 415 where there is a body, 503 where the engine is asked', () => {
  const app = appWith();
  for (const route of app.routes) {
    const responses = document.paths[route.path][route.method.toLowerCase()].responses as Json;
    const name = `${route.method} ${route.path}`;
    const hasBody = route.body !== undefined;
    assert.is(Boolean(responses['413']) && Boolean(responses['415']), hasBody, `${name} 413/415`);
    if (hasBody || route.path.includes('{')) assert.ok(responses['400'], `${name} 400`);
    if (!route.public) assert.ok(responses['503'], `${name} 503`);
  }
  const runResponses = Object.keys(document.paths['/workflow/run'].post.responses);
  for (const status of ['200', '400', '404', '408', '424', '500', '503']) assert.ok(runResponses.includes(status), `POST /workflow/run documents ${status} (spec)`);
});

test('deprecated endpoints: deprecated, 410 documented, Deprecation/Sunset/Link on every response', () => {
  for (const { method, path, operation } of operations()) {
    const name = `${method} ${path}`;
    assert.is(operation.deprecated === true, DEPRECATED.includes(name), name);
    if (!DEPRECATED.includes(name)) continue;
    assert.ok(operation.responses['410'], `${name} documents 410 GoneError`);
    for (const [status, response] of Object.entries<Json>(operation.responses)) {
      for (const header of ['Deprecation', 'Sunset', 'Link']) assert.ok(response.headers[header], `${name} ${status} ${header}`);
    }
  }
  const resultOk = document.paths['/workflow/{id}/result'].get.responses['200'];
  assert.ok(resultOk.headers.Deprecation, 'a legacy result is answered with Deprecation');
  // RFC 9745: a Structured Field Date, `@` and epoch seconds; not RFC 8594's old `true`.
  const deprecation = new RegExp(document.components.headers.Deprecation.schema.pattern);
  assert.ok(deprecation.test('@1767225600'), 'the documented form is @<epoch seconds>');
  assert.not.ok(deprecation.test('true'));
});

test('result shapes: exactly the documented keys, all required, no others', () => {
  const v2 = schemas.WorkflowResultV2!;
  const v2Keys = ['v', 'workflowId', 'runId', 'status', 'input', 'output', 'trace', 'error'];
  assert.equal(Object.keys(v2.properties).sort(), [...v2Keys].sort());
  assert.equal([...v2.required].sort(), [...v2Keys].sort());
  assert.is(v2.additionalProperties, false);
  assert.equal(v2.properties.v, { type: 'string', const: '2' });

  const legacy = schemas.WorkflowResultLegacy!;
  const legacyKeys = ['workflowId', 'runId', 'status', 'input', 'output', 'trace', 'error', 'errorDetails'];
  assert.equal(Object.keys(legacy.properties).sort(), [...legacyKeys].sort());
  assert.equal([...legacy.required].sort(), [...legacyKeys].sort());
  assert.is(legacy.additionalProperties, false);

  const traceInfo = schemas.TraceInfoV2!;
  assert.equal(Object.keys(traceInfo.properties).sort(), ['local', 'remote']);
  assert.is(traceInfo.required, undefined, 'local and remote are omitted when unavailable, never null');
  assert.is(traceInfo.additionalProperties, false);

  assert.equal([...schemas.Error!.required].sort(), ['error', 'message']);
  assert.equal([...schemas.ValidationErrorResponse!.required].sort(), ['error', 'issues', 'message']);
});

test('request bodies as clients send them: strict, required fields, the timeout bound from the options', () => {
  const run = schemas.RunWorkflowRequest!;
  assert.is(run.additionalProperties, false);
  assert.equal([...run.required].sort(), ['input', 'workflowName']);
  assert.equal(run.properties.timeout, { ...run.properties.timeout, type: 'number', exclusiveMinimum: 0, maximum: 3600, default: 30 });
  assert.is(run.properties.taskQueue.deprecated, true);
  assert.equal([...schemas.StartWorkflowRequest!.required].sort(), ['input', 'workflowName']);
  assert.is(schemas.StartWorkflowRequest!.properties.timeout, undefined);
  assert.equal([...schemas.FeedbackRequest!.required].sort(), ['payload', 'workflowId']);
  assert.equal(schemas.ResetRequest!.required, ['stepName']);
  assert.is(schemas.TerminateRequest!.required, undefined);
  assert.is(document.paths['/workflow/{id}/runs/{rid}/terminate'].post.requestBody.required, false);
  assert.is(document.paths['/workflow/{id}/runs/{rid}/reset'].post.requestBody.required, true);

  const tighter = appWith({ runTimeoutMaxSeconds: 60, defaultRunTimeoutSeconds: 10 }).openApiDocument as Json;
  const timeout = tighter.components.schemas.RunWorkflowRequest.properties.timeout;
  assert.is(timeout.maximum, 60);
  assert.is(timeout.default, 10);
});

test('parameters: path ids required, query parameters typed with their bounds and defaults', () => {
  const parameter = (path: string, method: string, name: string): Json =>
    (document.paths[path][method].parameters as Json[]).find((candidate) => candidate.name === name)!;
  const id = parameter('/workflow/{id}/runs/{rid}/status', 'get', 'id');
  assert.equal({ in: id.in, required: id.required, minLength: id.schema.minLength, maxLength: id.schema.maxLength }, { in: 'path', required: true, minLength: 1, maxLength: 1000 });
  assert.is(parameter('/workflow/{id}/runs/{rid}/status', 'get', 'rid').schema.format, 'uuid');
  assert.equal(parameter('/workflow/runs', 'get', 'limit').schema, { type: 'integer', minimum: 1, maximum: 1000, default: 100 });
  assert.equal(parameter('/workflow/{id}/history', 'get', 'pageSize').schema, { type: 'integer', minimum: 1, maximum: 200, default: 50 });
  assert.ok(parameter('/workflow/runs', 'get', 'status').schema.enum.includes('continued'));
  assert.equal(parameter('/workflow/{id}/result', 'get', 'v').schema.enum, ['2', 'legacy']);
  assert.equal(parameter('/workflow/run', 'post', 'v').schema.enum, ['2', 'legacy']);
  assert.ok(parameter('/workflow/list', 'get', 'catalog'));
  const history = document.paths['/workflow/{id}/runs/{rid}/history'].get;
  assert.ok(history.responses['200'].content['text/event-stream'], 'the SSE form is documented');
  assert.ok(history.parameters.some((candidate: Json) => candidate.in === 'header' && candidate.name === 'Last-Event-ID'));
});

test('no header parameter OpenAPI 3.1 ignores (Accept, Content-Type, Authorization): tools drop them or complain', () => {
  for (const { method, path, operation } of operations()) {
    for (const parameter of operation.parameters as Json[]) {
      if (parameter.in !== 'header') continue;
      assert.not.ok(['accept', 'content-type', 'authorization'].includes(String(parameter.name).toLowerCase()), `${method} ${path} documents ${parameter.name}`);
    }
  }
  assert.throws(
    () => createHttpAppWithRouteHeader('Accept'),
    /Accept.*OpenAPI 3\.1 ignores/,
    'a route that declares one is refused when the document is built',
  );
});

test('every operation documents its 400, the probes and the document included: an unknown query parameter is refused everywhere', () => {
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, operation] of Object.entries(item)) {
      if (!operation.responses) continue;
      assert.ok(operation.responses['400'], `${method.toUpperCase()} ${path} documents 400`);
    }
  }
});

test('the history event stream: text/event-stream whose schema is one of the named events, each with the schema of its data', () => {
  for (const path of ['/workflow/{id}/history', '/workflow/{id}/runs/{rid}/history']) {
    const stream = document.paths[path].get.responses['200'].content['text/event-stream'];
    assert.ok(stream, `${path}: the event-stream form`);
    assert.is(stream['x-events'], undefined, 'no vendor extension: a schema tools read');
    const events = stream.schema.oneOf as Json[];
    const byName = Object.fromEntries(events.map((event) => [event.properties.event.const, event]));
    assert.equal(Object.keys(byName), ['workflow', 'history', 'progress', 'done', 'error'], 'every event name, in stream order');
    const data = (name: string) => byName[name]!.properties.data.$ref;
    assert.is(data('workflow'), '#/components/schemas/WorkflowStatus');
    assert.is(data('history'), '#/components/schemas/HistoryEvent');
    assert.is(data('progress'), '#/components/schemas/HistoryProgress');
    assert.is(data('done'), '#/components/schemas/HistoryDone');
    assert.is(data('error'), '#/components/schemas/Error');
    for (const event of events) {
      assert.is(event.type, 'object');
      assert.ok(event.required.includes('event') && event.required.includes('data'), `${event.properties.event.const}: event and data required`);
      assert.ok(resolve(event.properties.data.$ref), `${event.properties.data.$ref} resolves`);
      assert.type(event.description, 'string');
    }
    assert.ok(byName.history!.required.includes('id') && byName.progress!.required.includes('id'), 'history and progress events carry an id');
    assert.is(byName.workflow!.properties.id, undefined, 'workflow and error events none');
    assert.is(byName.error!.properties.id, undefined);
    // The empty id a done event carries on the latest-run URL once another run is the latest (docs/api.md): allowed, not required.
    assert.is(byName.done!.properties.id.type, 'string');
    assert.not.ok(byName.done!.required.includes('id'), 'done carries an id only sometimes');
  }
});

test('the documented workflowId rule is the enforced one: no control characters (pattern), 1000 characters', async () => {
  // schemathesis found ids with control characters valid by the document (no pattern) but refused by the server.
  const idSchemas = [
    (document.paths['/workflow/{id}/status'].get.parameters as Json[]).find((candidate) => candidate.name === 'id')!.schema,
    (document.paths['/workflow/{id}/runs/{rid}/reset'].post.parameters as Json[]).find((candidate) => candidate.name === 'id')!.schema,
    schemas.StartWorkflowRequest!.properties.workflowId,
    schemas.RunWorkflowRequest!.properties.workflowId,
    schemas.FeedbackRequest!.properties.workflowId,
  ];
  for (const schema of idSchemas) {
    assert.type(schema.pattern, 'string', `pattern in ${JSON.stringify(schema)}`);
    const pattern = new RegExp(schema.pattern, 'u');
    for (const id of ['a\u0000', 'a\nb', '\t', 'x\u001f', 'x\u007f', 'x\u0085', '\u009f']) {
      assert.not.ok(pattern.test(id), `the documented pattern refuses ${JSON.stringify(id)}`);
      assert.ok(workflowIdProblem(id), `the server refuses ${JSON.stringify(id)}`);
    }
    for (const id of ['order 17/ü', 'a b', '😀'.repeat(1000), 'x'.repeat(1000)]) {
      assert.ok(pattern.test(id), `the documented pattern allows ${JSON.stringify(id.slice(0, 20))}`);
      assert.is(workflowIdProblem(id), undefined, `the server allows ${JSON.stringify(id.slice(0, 20))}`);
    }
    assert.equal([schema.minLength, schema.maxLength], [1, 1000]);
  }
  // Through the app: 1000 emoji (2000 code units) are within maxLength 1000, so they are a valid path id.
  const app = appWith();
  const response = await app.handle({
    method: 'GET',
    url: `/workflow/${encodeURIComponent('😀'.repeat(1000))}/status`,
    headers: {},
    body: null,
    signal: new AbortController().signal,
  });
  assert.is.not(response.status, 400, String(response.body));
});

test('names and catalogs: maxLength counts characters as the document does; unpaired surrogates are refused', () => {
  const app = appWith();
  const route = app.routes.find((candidate) => candidate.operationId === 'startWorkflow')!;
  const parse = (fields: Record<string, unknown>) => route.body!.schema.safeParse({ workflowName: 'echo', input: {}, ...fields });
  assert.is(schemas.StartWorkflowRequest!.properties.catalog.maxLength, 1000);
  assert.ok(parse({ catalog: '😀'.repeat(1000) }).success, '1000 emoji are 1000 characters');
  assert.not.ok(parse({ catalog: '😀'.repeat(1001) }).success);
  assert.ok(parse({ workflowName: '😀'.repeat(200) }).success);
  assert.not.ok(parse({ workflowName: 'x'.repeat(201) }).success);
  for (const fields of [{ catalog: 'main\ud800' }, { taskQueue: '\udc00' }, { workflowName: 'echo\udbff' }]) {
    assert.not.ok(parse(fields).success, JSON.stringify(fields));
  }
  const reset = app.routes.find((candidate) => candidate.operationId === 'resetRun')!.body!.schema;
  assert.not.ok(reset.safeParse({ stepName: 'add_one\ud800' }).success);
  assert.not.ok(reset.safeParse({ stepName: 'add_one', reason: '\ud800' }).success);
  assert.ok(reset.safeParse({ stepName: 'add_one', reason: 'ok 😀' }).success);
  const terminate = app.routes.find((candidate) => candidate.operationId === 'terminateRun')!.body!.schema;
  assert.not.ok(terminate.safeParse({ reason: 'x\udc00' }).success);
});

test('Idempotency-Key: documented with its rule on exactly the keyed operations, with 409 and Idempotency-Expires', () => {
  const keyed = ['POST /workflow', 'POST /workflow/run', 'POST /workflow/feedback', 'POST /workflow/{id}/runs/{rid}/reset', 'POST /workflow/{id}/reset', 'POST /workflow/{id}/runs/{rid}/terminate', 'POST /workflow/{id}/runs/{rid}/rerun'];
  for (const { method, path, operation } of operations()) {
    const name = `${method} ${path}`;
    const parameter = (operation.parameters as Json[]).find((p) => p.in === 'header' && p.name === 'Idempotency-Key');
    if (!keyed.includes(name)) {
      assert.is(parameter, undefined, `${name} takes no Idempotency-Key`);
      continue;
    }
    assert.ok(parameter, `${name} documents Idempotency-Key`);
    assert.is(parameter!.required, false);
    assert.equal(parameter!.schema, { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' });
    assert.match(operation.responses['409'].description, /IdempotencyKeyReusedError/, `${name}: 409 IdempotencyKeyReusedError`);
    assert.ok(operation.responses['200'].headers['Idempotency-Expires'], `${name}: 200 announces Idempotency-Expires`);
  }
  assert.match(resolve('#/components/headers/Idempotency-Expires')!.description, /HTTP-date/);
});

test('GET /openapi.json serves the same document, without a token even when one is configured', async () => {
  const app = appWith({ authToken: 'sekret' });
  const call = () => app.handle({ method: 'GET', url: '/openapi.json', headers: {}, body: null, signal: new AbortController().signal });
  const first = await call();
  assert.is(first.status, 200);
  assert.match(first.headers['content-type'] ?? '', /^application\/json/);
  assert.equal(JSON.parse(first.body as string), app.openApiDocument);
  assert.is((await call()).body, first.body, 'served from the string serialized at start-up');
});

test.run();
