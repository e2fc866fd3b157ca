import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startFlowgateServer, type FlowgateServer } from '../../composition/server.js';
import { loadEmbeddedWorker } from '../../composition/embeddedWorker.js';
import { call } from '../support/http.js';
import { recorded } from '../fixtures/hooks/recordingHooks.js';

/*
 * Worker hooks on the embedded engine, through the HTTP API: lifecycle hooks, http:request events from real HTTP
 * calls, cost events, aggregations, and hooks that misbehave without touching the run.
 */
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/hooks/${name}`, import.meta.url));
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const DETAILS_KEYS = ['attempt', 'firstExecutionRunId', 'runId', 'runStartTime', 'startTime', 'workflowId', 'workflowType'];

interface Context {
  server: FlowgateServer;
  target: Server;
  targetUrl: string;
  traceDir: string;
}
const test = suite<Context>('worker hooks (embedded engine)', {} as Context);

test.before(async (context) => {
  context.target = createServer((request, response) => {
    if (request.url?.startsWith('/drop')) return void request.socket.destroy();
    response.statusCode = request.url?.startsWith('/missing') ? 404 : 200;
    response.end('ok');
  });
  await new Promise<void>((resolve) => context.target.listen(0, '127.0.0.1', resolve));
  context.targetUrl = `http://127.0.0.1:${(context.target.address() as AddressInfo).port}`;
  context.traceDir = await mkdtemp(join(tmpdir(), 'flowgate-hooks-'));
  const logger = { info: () => {}, warn: () => {}, error: () => {} };
  const worker = await loadEmbeddedWorker({
    catalog: 'main',
    workflowModules: [fixture('meteredWorkflows.ts')],
    hookFiles: [fixture('recordingHooks.ts'), fixture('misbehavingHooks.ts')],
    hookTimeoutMs: 200,
    logger,
  });
  context.server = await startFlowgateServer({ env: { HOST: '127.0.0.1', PORT: '0', TRACE_DIR: context.traceDir }, workers: [worker], logger });
});
test.after(async (context) => {
  await context.server?.close();
  await new Promise((resolve) => context.target?.close(resolve));
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});
test.before.each(() => {
  recorded.length = 0;
});

/** The hooks recorded, without the runtime errors the misbehaving hook file causes on every run. */
const lifecycle = (): string[] =>
  recorded.filter((entry) => entry.hook.startsWith('on') && !(entry.hook === 'onError' && entry.payload.source === 'runtime')).map((entry) => entry.hook);

const waitFor = async (predicate: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5_000;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; recorded: ${recorded.map((entry) => entry.hook).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

test('a completed run: each lifecycle hook once, in order, with exact payload keys; http and cost events; aggregations', async ({ server, targetUrl }) => {
  const urls = [`${targetUrl}/ok?api_key=s3cret&page=2`, `${targetUrl}/missing`, `${targetUrl}/drop`];
  const response = await call({ baseUrl: server.url }, 'POST', '/workflow/run', { json: { workflowName: 'metered', input: { urls } } });
  assert.is(response.status, 200, JSON.stringify(response.body));
  assert.equal(response.body.output, [200, 404, 'TypeError']);
  await waitFor(() => recorded.some((entry) => entry.hook === 'onWorkflowEnd'), 'onWorkflowEnd');
  await waitFor(() => recorded.some((entry) => entry.hook === 'onActivityEnd'), 'onActivityEnd');
  assert.equal(lifecycle(), ['onWorkflowStart', 'onActivityStart', 'onActivityEnd', 'onWorkflowEnd']);
  assert.equal(recorded.filter((entry) => entry.hook === 'http:request').length, 3);

  const byHook = (hook: string) => recorded.filter((entry) => entry.hook === hook).map((entry) => entry.payload);
  const [start] = byHook('onWorkflowStart');
  assert.equal(Object.keys(start).sort(), ['eventDate', 'eventId', 'workflowDetails']);
  assert.match(start.eventId, UUID_V4);
  assert.ok(Math.abs(start.eventDate - Date.now()) < 10_000);
  assert.equal(Object.keys(start.workflowDetails).sort(), DETAILS_KEYS);
  assert.is(start.workflowDetails.workflowId, response.body.workflowId);
  assert.is(start.workflowDetails.workflowType, 'metered');

  const [activityEnd] = byHook('onActivityEnd');
  assert.equal(Object.keys(activityEnd).sort(), ['activityInfo', 'aggregations', 'eventDate', 'eventId', 'outputActivityKind', 'workflowDetails']);
  assert.is(activityEnd.outputActivityKind, 'step');
  assert.equal(activityEnd.activityInfo, { activityId: '1', activityType: 'metered#call_apis', name: 'call_apis', attempt: 1 });
  assert.equal(activityEnd.aggregations, { totalCost: 0.875, httpCalls: 3, tokens: 150 });

  const http = byHook('http:request');
  assert.equal(http.map((event) => [event.method, event.status, event.outcome]), [
    ['GET', 200, 'success'],
    ['GET', 404, 'failure'],
    ['GET', undefined, 'error'],
  ]);
  assert.is(http[0].url, `${targetUrl}/ok?api_key=REDACTED&page=2`);
  assert.is(http[0].activityInfo.activityType, 'metered#call_apis');
  assert.is(http[0].workflowDetails.runId, response.body.runId);

  const costs = byHook('cost:llm:request');
  assert.is(costs.length, 2);
  assert.is(costs[0].model, 'test');
  assert.match(costs[0].eventId, UUID_V4);
  assert.is(costs[1].eventId, '11111111-1111-4111-8111-111111111111', 'a preset eventId is kept');
  assert.is(costs[1].eventDate, 1_700_000_000_000, 'a preset eventDate is kept');

  const trace = JSON.parse(await readFile(response.body.trace.local, 'utf8'));
  assert.equal(trace.steps[0].aggregations, { totalCost: 0.875, httpCalls: 3, tokens: 150 }, 'the trace records per-step aggregations');
});

test('a failing run: onActivityError, onWorkflowError and onError (activity, then workflow source)', async ({ server }) => {
  const response = await call({ baseUrl: server.url }, 'POST', '/workflow/run', { json: { workflowName: 'metered_failure', input: {} } });
  assert.is(response.body.status, 'failed');
  await waitFor(() => recorded.some((entry) => entry.hook === 'onWorkflowError'), 'onWorkflowError');
  assert.equal(lifecycle(), ['onWorkflowStart', 'onActivityStart', 'onActivityError', 'onError', 'onWorkflowError', 'onError']);
  const errors = recorded.filter((entry) => entry.hook === 'onError' && entry.payload.source !== 'runtime').map((entry) => entry.payload);
  assert.equal(Object.keys(errors[0]).sort(), ['activityInfo', 'error', 'eventDate', 'eventId', 'outputActivityKind', 'source', 'workflowDetails']);
  assert.is(errors[0].source, 'activity');
  assert.is(errors[0].error.message, 'refused');
  assert.equal(Object.keys(errors[1]).sort(), ['error', 'eventDate', 'eventId', 'source', 'workflowDetails']);
  assert.is(errors[1].source, 'workflow');
  const activityError = recorded.find((entry) => entry.hook === 'onActivityError')!.payload;
  assert.equal(activityError.aggregations, { totalCost: 0, httpCalls: 0, tokens: 0 });
});

test('a throwing hook and a hanging hook: the run completes, and each is reported through onError with source runtime', async ({ server }) => {
  const response = await call({ baseUrl: server.url }, 'POST', '/workflow/run', { json: { workflowName: 'metered', input: { urls: [] } } });
  assert.is(response.body.status, 'completed');
  await waitFor(() => recorded.filter((entry) => entry.hook === 'onError').length >= 2, 'two runtime errors');
  const runtime = recorded.filter((entry) => entry.hook === 'onError').map((entry) => entry.payload);
  assert.ok(runtime.every((event) => event.source === 'runtime'), 'a completed run reports only the hooks\' own failures');
  assert.equal(Object.keys(runtime[0]).sort(), ['error', 'eventDate', 'eventId', 'source']);
  const messages = runtime.map((event) => event.error.message).sort();
  assert.match(messages.join('\n'), /hook exploded/);
  assert.match(messages.join('\n'), /hook onActivityEnd did not finish within 200 ms/);
});

test.run();
