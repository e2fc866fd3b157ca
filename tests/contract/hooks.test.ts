import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { contractSuite, expectStatus, http, keys, waitUntil } from '../support/contract.js';
import { recorded } from '../fixtures/hooks/recordingHooks.js';
import { parseExposition, valueOf, type Exposition } from '../support/prometheus.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/*
 * Worker hooks through the HTTP API, on both engines: lifecycle hooks, http:request events from real HTTP calls to a
 * loopback server, cost events, aggregations in hooks and traces, and hooks that misbehave without touching the run.
 */
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/hooks/${name}`, import.meta.url));
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DETAILS_KEYS = ['attempt', 'firstExecutionRunId', 'runId', 'runStartTime', 'startTime', 'workflowId', 'workflowType'];
const ACTIVITY_EVENT_KEYS = ['activityInfo', 'eventDate', 'eventId', 'outputActivityKind', 'workflowDetails'];

// The webhook target is on loopback, which outbound calls refuse unless the allow-list opens it.
const test = contractSuite('worker hooks', { OUTBOUND_ALLOWLIST: '127.0.0.1' }, {
  catalogs: [
    {
      catalog: 'main',
      modules: [fixture('meteredWorkflows.ts')],
      hookFiles: [fixture('recordingHooks.ts'), fixture('misbehavingHooks.ts')],
      hookTimeoutMs: 200,
    },
  ],
});

// The HTTP calls the steps make land here: /missing answers 404, /drop closes the socket without an answer.
let target: Server;
let targetUrl: string;
const webhookCalls: string[] = [];
test.before(async () => {
  target = createServer((request, response) => {
    if (request.url?.startsWith('/drop')) return void request.socket.destroy();
    if (request.method === 'POST') webhookCalls.push(request.url ?? '');
    response.statusCode = request.url?.startsWith('/missing') ? 404 : 200;
    response.end('ok');
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
});
test.after(async () => {
  await new Promise((resolve) => target?.close(resolve));
});
test.before.each(() => {
  recorded.length = 0;
});

const payloadsOf = (hook: string) => recorded.filter((entry) => entry.hook === hook).map((entry) => entry.payload);
const ofRun = (runId: string) => recorded.filter((entry) => entry.payload.workflowDetails?.runId === runId);

/** The lifecycle hooks recorded for one run, without the runtime errors the misbehaving hook file causes. */
const lifecycleOf = (runId: string): string[] =>
  ofRun(runId).filter((entry) => entry.hook.startsWith('on')).map((entry) => (entry.hook === 'onError' ? `onError:${entry.payload.source}` : entry.hook));

const waitFor = (predicate: () => boolean, what: string): Promise<true> =>
  eventually(() => `${what}; recorded: ${recorded.map((entry) => entry.hook).join(', ')}`, predicate, { timeoutMs: 15_000, intervalMs: 20 });

test('a completed run: each lifecycle hook once, in order, with exact payload keys; http and cost events; aggregations in hooks and trace', async ({ api }) => {
  const urls = [`${targetUrl}/ok?api_key=s3cret&page=2`, `${targetUrl}/missing`, `${targetUrl}/drop`];
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'metered', input: { urls } } });
  expectStatus(response, 200);
  assert.equal(response.body.output, [200, 404, 'TypeError']);
  const { workflowId, runId } = response.body;
  await waitFor(() => lifecycleOf(runId).includes('onWorkflowEnd'), 'onWorkflowEnd');
  assert.equal(lifecycleOf(runId), ['onWorkflowStart', 'onActivityStart', 'onActivityEnd', 'onWorkflowEnd']);

  const [start] = payloadsOf('onWorkflowStart');
  assert.equal(keys(start), ['eventDate', 'eventId', 'workflowDetails']);
  assert.match(start.eventId, UUID_V4);
  assert.ok(Math.abs(start.eventDate - Date.now()) < 15_000, 'eventDate is epoch milliseconds of now');
  assert.equal(keys(start.workflowDetails), DETAILS_KEYS);
  const details = start.workflowDetails;
  assert.equal([details.workflowId, details.runId, details.firstExecutionRunId, details.workflowType, details.attempt], [workflowId, runId, runId, 'metered', 1]);
  assert.ok(details.startTime <= details.runStartTime && Math.abs(details.runStartTime - Date.now()) < 15_000, JSON.stringify(details));

  const [activityStart] = payloadsOf('onActivityStart');
  assert.equal(keys(activityStart), ACTIVITY_EVENT_KEYS);
  assert.equal(activityStart.workflowDetails, details, 'a step attempt sees the same workflowDetails as the run hooks');
  const [activityEnd] = payloadsOf('onActivityEnd');
  assert.equal(keys(activityEnd), [...ACTIVITY_EVENT_KEYS, 'aggregations'].sort());
  assert.is(activityEnd.outputActivityKind, 'step');
  assert.equal(activityEnd.activityInfo, { activityId: '1', activityType: 'metered#call_apis', name: 'call_apis', attempt: 1 });
  assert.equal(activityEnd.aggregations, { totalCost: 0.875, httpCalls: 3, tokens: 150 });
  const [end] = payloadsOf('onWorkflowEnd');
  assert.equal(keys(end), ['eventDate', 'eventId', 'workflowDetails']);
  assert.equal(end.workflowDetails, details);
  assert.is(new Set([start.eventId, activityStart.eventId, activityEnd.eventId, end.eventId]).size, 4, 'every event has its own id');

  const requests = payloadsOf('http:request');
  assert.equal(requests.map((event) => [event.method, event.status, event.outcome]), [
    ['GET', 200, 'success'],
    ['GET', 404, 'failure'],
    ['GET', undefined, 'error'],
  ]);
  assert.equal(keys(requests[0]), [...ACTIVITY_EVENT_KEYS, 'durationMs', 'method', 'outcome', 'requestId', 'status', 'url'].sort());
  assert.is(requests[0].url, `${targetUrl}/ok?api_key=REDACTED&page=2`, 'secret query values are redacted');
  assert.is(requests[0].activityInfo.activityType, 'metered#call_apis');
  assert.equal([requests[0].workflowDetails.workflowId, requests[0].workflowDetails.runId], [workflowId, runId]);
  assert.ok(requests.every((event) => typeof event.durationMs === 'number' && event.durationMs >= 0));

  const costs = payloadsOf('cost:llm:request');
  assert.is(costs.length, 2);
  assert.is(costs[0].model, 'test');
  assert.match(costs[0].eventId, UUID_V4);
  assert.is(costs[1].eventId, '11111111-1111-4111-8111-111111111111', 'a preset eventId is kept');
  assert.is(costs[1].eventDate, 1_700_000_000_000, 'a preset eventDate is kept');

  const trace = JSON.parse(await readFile(response.body.trace.local, 'utf8'));
  assert.equal(trace.steps[0].aggregations, { totalCost: 0.875, httpCalls: 3, tokens: 150 }, 'the trace records per-step aggregations');
});

test('a failing run: onActivityError, onWorkflowError and onError (activity, then workflow source) with exact keys', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'metered_failure', input: {} } });
  assert.is(response.body.status, 'failed');
  const { runId } = response.body;
  await waitFor(() => lifecycleOf(runId).includes('onError:workflow'), 'onError from the workflow');
  assert.equal(lifecycleOf(runId), ['onWorkflowStart', 'onActivityStart', 'onActivityError', 'onError:activity', 'onWorkflowError', 'onError:workflow']);
  const [activityError] = payloadsOf('onActivityError');
  assert.equal(keys(activityError), [...ACTIVITY_EVENT_KEYS, 'aggregations', 'error'].sort());
  assert.equal(activityError.aggregations, { totalCost: 0, httpCalls: 0, tokens: 0 });
  assert.is(activityError.error.message, 'refused');
  const errors = ofRun(runId).filter((entry) => entry.hook === 'onError').map((entry) => entry.payload);
  assert.equal(keys(errors[0]), [...ACTIVITY_EVENT_KEYS, 'error', 'source'].sort());
  assert.is(errors[0].source, 'activity');
  assert.is(errors[0].outputActivityKind, 'step');
  assert.is(errors[0].error.message, 'refused');
  assert.equal(keys(errors[1]), ['error', 'eventDate', 'eventId', 'source', 'workflowDetails']);
  assert.is(errors[1].source, 'workflow');
  const [workflowError] = payloadsOf('onWorkflowError');
  assert.equal(keys(workflowError), ['error', 'eventDate', 'eventId', 'workflowDetails']);
  assert.match(workflowError.error.message, /refused/);
});

test('a child run: its workflowDetails name its parent and root; its steps see the same details', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'metered_parent', input: { urls: [] } } });
  expectStatus(response, 200);
  assert.is(response.body.status, 'completed');
  const parent = response.body;
  await waitFor(() => lifecycleOf(parent.runId).includes('onWorkflowEnd'), 'the parent ending');
  const childStart = payloadsOf('onWorkflowStart').find((event) => event.workflowDetails.workflowType === 'metered');
  assert.ok(childStart, 'the child run started with hooks');
  const child = childStart.workflowDetails;
  assert.equal(keys(child), [...DETAILS_KEYS, 'parent', 'root'].sort());
  assert.equal(child.parent, { runId: parent.runId, workflowId: parent.workflowId, namespace: 'default' });
  assert.equal(child.root, { runId: parent.runId, workflowId: parent.workflowId });
  assert.equal(lifecycleOf(child.runId), ['onWorkflowStart', 'onActivityStart', 'onActivityEnd', 'onWorkflowEnd']);
  assert.equal(ofRun(child.runId).find((entry) => entry.hook === 'onActivityEnd')!.payload.workflowDetails, child);
});

test('the webhook call of a waiting run is an internal_step whose HTTP call is metered', async ({ api }) => {
  webhookCalls.length = 0;
  const started = await http(api, 'POST', '/workflow', { json: { workflowName: 'metered_webhook', input: { url: `${targetUrl}/hook` } } });
  expectStatus(started, 200);
  const { workflowId } = started.body;
  await waitFor(() => payloadsOf('onActivityEnd').length > 0, 'the webhook step ending');
  const [activityEnd] = payloadsOf('onActivityEnd');
  assert.is(activityEnd.outputActivityKind, 'internal_step');
  assert.is(activityEnd.activityInfo.activityType, 'metered_webhook#webhook');
  assert.equal(activityEnd.aggregations, { totalCost: 0, httpCalls: 1, tokens: 0 });
  assert.equal(webhookCalls, ['/hook']);
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true } } }), 200);
  await waitUntil(api, workflowId, 'completed');
  assert.equal(lifecycleOf(started.body.runId), ['onWorkflowStart', 'onActivityStart', 'onActivityEnd', 'onWorkflowEnd']);
});

test('a throwing hook and a hanging hook: the run completes, and each is reported through onError with source runtime', async ({ api }) => {
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'metered', input: { urls: [] } } });
  assert.is(response.body.status, 'completed');
  await waitFor(() => payloadsOf('onError').length >= 2, 'two runtime errors');
  const runtime = payloadsOf('onError');
  assert.ok(runtime.every((event) => event.source === 'runtime'), "a completed run reports only the hooks' own failures");
  assert.equal(keys(runtime[0]), ['error', 'eventDate', 'eventId', 'source']);
  const messages = runtime.map((event) => event.error.message).sort().join('\n');
  assert.match(messages, /hook exploded/);
  assert.match(messages, /hook onActivityEnd did not finish within 200 ms/);
});

/** What counts step attempts: the API process on the embedded engine, the workers on Temporal (docs/operations.md). */
async function stepMetrics(api: TestApi): Promise<Exposition> {
  if (api.engine === 'temporal') {
    assert.ok(api.scrapeWorkers, 'the Temporal workers keep metrics');
    return parseExposition(await api.scrapeWorkers());
  }
  const response = await http(api, 'GET', '/metrics');
  expectStatus(response, 200);
  return parseExposition(response.text);
}

test("the aggregations as metrics: cost, tokens and HTTP calls by workflow and step, where the steps run", async ({ api }) => {
  const labels = { workflow: 'metered', step: 'call_apis' };
  const counted = (exposition: Exposition) =>
    ['flowgate_step_cost_total', 'flowgate_step_tokens_total', 'flowgate_step_http_calls_total'].map((name) => valueOf(exposition, name, labels));
  const attempts = (exposition: Exposition) => valueOf(exposition, 'flowgate_step_attempt_duration_seconds_count', { ...labels, outcome: 'success' });
  const before = await stepMetrics(api);
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'metered', input: { urls: [`${targetUrl}/ok`, `${targetUrl}/missing`] } } });
  expectStatus(response, 200);
  assert.is(response.body.status, 'completed');
  const after = await stepMetrics(api);
  const grown = counted(after).map((value, index) => value - counted(before)[index]!);
  assert.equal(grown, [0.875, 150, 2], 'one attempt: two LLM costs (0.875, 150 tokens), two HTTP calls');
  assert.is(attempts(after) - attempts(before), 1);
});

test.run();
