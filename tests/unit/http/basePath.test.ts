import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createFetchHandler } from '../../../adapters/http/fetch.js';
import * as errors from '../../../core/domain/errors.js';
import { call, harness } from './appHarness.js';
import { RecordingApi, RUN_ID, SequentialIds } from './fakeApi.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { CapturingLogger } from '../../support/logLines.js';

const timedOut = () =>
  new errors.WorkflowExecutionTimedOutError(`Workflow slow did not complete within 1 s; it keeps running and its result stays readable at /workflow/slow/result`, {
    workflowId: 'slow',
    runId: RUN_ID,
  });

test('basePath: a request that still carries it is routed without it; Location, the message and the access log keep it', async () => {
  const h = harness({ basePath: '/flows' });
  h.api.overrides.runAndWait = async () => {
    throw timedOut();
  };
  const answer = await call(h, 'POST', '/flows/workflow/run', { json: { workflowName: 'echo', input: {} } });
  assert.is(answer.status, 408);
  assert.is(answer.headers['location'], `/flows/workflow/slow/runs/${RUN_ID}/result`);
  assert.match(answer.json.message, /readable at \/flows\/workflow\/slow\/result$/);
  const access = h.logger.entries.find((entry) => entry.message === 'http request');
  assert.is(access?.fields.path, '/flows/workflow/run');
});

test('basePath: a request a router already stripped (Hono mount) is answered the same way', async () => {
  const h = harness({ basePath: '/flows/' });
  h.api.overrides.runAndWait = async () => {
    throw timedOut();
  };
  const answer = await call(h, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: {} } });
  assert.is(answer.status, 408);
  assert.is(answer.headers['location'], `/flows/workflow/slow/runs/${RUN_ID}/result`);
  assert.is(h.logger.entries.find((entry) => entry.message === 'http request')?.fields.path, '/flows/workflow/run');
  const missing = await call(h, 'GET', '/flows/nothing-here');
  assert.is(missing.status, 404);
  assert.is(missing.json.message, 'No endpoint at /flows/nothing-here.');
});

test('a framework base (Express req.baseUrl) wins and is not stripped twice', async () => {
  const h = harness({ basePath: '/other' });
  h.api.overrides.runAndWait = async () => {
    throw timedOut();
  };
  const response = await h.app.handle({
    method: 'POST',
    url: '/workflow/run',
    basePath: '/api',
    headers: { 'content-type': 'application/json' },
    body: (async function* () {
      yield new TextEncoder().encode(JSON.stringify({ workflowName: 'echo', input: {} }));
    })(),
    signal: new AbortController().signal,
  });
  assert.is(response.status, 408);
  assert.is(response.headers['location'], `/api/workflow/slow/runs/${RUN_ID}/result`);
  assert.match(String(response.body), /readable at \/api\/workflow\/slow\/result/);
});

test('a deprecated endpoint\'s 410 names its successor under the prefix', async () => {
  const h = harness({ basePath: '/flows', deprecatedEndpoints: false });
  const gone = await call(h, 'PATCH', '/flows/workflow/abc/stop');
  assert.is(gone.status, 410);
  assert.match(gone.json.message, /use PATCH \/flows\/workflow\/\{id\}\/runs\/\{rid\}\/stop/);
});

test('the fetch handler takes basePath too: under Hono\'s app.all or mount alike', async () => {
  const api = new RecordingApi();
  api.overrides.runAndWait = async () => {
    throw timedOut();
  };
  const handle = createFetchHandler({ api, logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, basePath: '/flows' });
  for (const url of ['http://app.test/flows/workflow/run', 'http://app.test/workflow/run']) {
    const response = await handle(new Request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"workflowName":"echo","input":{}}' }));
    assert.is(response.status, 408, url);
    assert.is(response.headers.get('location'), `/flows/workflow/slow/runs/${RUN_ID}/result`);
  }
});

test('a bad basePath is refused when the handler is made, naming the option', () => {
  for (const basePath of ['flows', '/flows?x=1', '/a//b', '/with space']) {
    assert.throws(() => harness({ basePath }), /basePath must be a path such as "\/flows"/);
  }
  for (const basePath of ['', '/']) harness({ basePath });
});

test.run();

test('basePath: the OpenAPI document names the mount prefix as its server; unmounted, "/"', async () => {
  const mounted = await call(harness({ basePath: '/flows' }), 'GET', '/flows/openapi.json');
  assert.is(mounted.status, 200);
  assert.equal(mounted.json.servers.map((server: { url: string }) => server.url), ['/flows']);
  const plain = await call(harness({}), 'GET', '/openapi.json');
  assert.equal(plain.json.servers.map((server: { url: string }) => server.url), ['/']);
  assert.is.not(mounted.headers['etag'], plain.headers['etag'], 'other bytes, another entity tag');
});
