import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { expectStatus, http, waitUntil } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { engineUnderTest, startTestApi, type TestApi } from '../support/engines.js';
import { TRACED_FIXTURE } from '../support/fixtureCatalogs.js';
import { uniqueId } from '../support/http.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver.js';

/**
 * Distributed tracing (docs/operations.md, Tracing), against a real OTLP/HTTP receiver: one trace from the request
 * that brings a W3C traceparent, through the run, to each step attempt, on the engine under test.
 */
const test = suite<{ receiver: OtlpReceiver; api: TestApi | undefined; traced: Exchange; untraced: Exchange; malformed: Exchange; feedback: Exchange; scheduled: string[] }>('tracing');

interface Exchange {
  requestId: string;
  workflowId: string;
}

const INCOMING_TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const INCOMING_SPAN = '00f067aa0ba902b7';
const TRACEPARENT = `00-${INCOMING_TRACE}-${INCOMING_SPAN}-01`;
const STEP_ACTIVITIES = ['arithmetic#add_one', 'arithmetic#double'];
const FEEDBACK_TRACE = '5ce0e9a56015fec5aadfa328ae398115';
const FEEDBACK_PARENT = `00-${FEEDBACK_TRACE}-b7ad6b7169203331-01`;
const SCHEDULE_TRACE = '7a3f0c9d21e84b6f9c0d1e2f3a4b5c6d';
const SCHEDULE_PARENT = `00-${SCHEDULE_TRACE}-1f2e3d4c5b6a7980-01`;

test.before(async (context) => {
  context.receiver = await startOtlpReceiver();
  context.api = await startTestApi(
    { OTEL_EXPORTER_OTLP_ENDPOINT: context.receiver.url, OTEL_SERVICE_NAME: 'flowgate-under-test', DEFAULT_CATALOG: TRACED_FIXTURE.catalog },
    { catalogs: [TRACED_FIXTURE] },
  );
});

test.after(async (context) => {
  await context.api?.close();
  await context.receiver?.close();
});

test('requests with, without and with a malformed traceparent run; closing the API sends every span', async (context) => {
  const api = context.api!;
  const run = async (headers: Record<string, string>): Promise<Exchange> => {
    const workflowId = uniqueId('traced');
    const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', workflowId, input: { n: 4 }, timeout: 30 }, headers });
    expectStatus(response, 200);
    assert.equal(response.body.output, { result: 10 });
    return { requestId: response.headers['x-request-id']!, workflowId };
  };
  context.traced = await run({ traceparent: TRACEPARENT });
  context.untraced = await run({});
  context.malformed = await run({ traceparent: '00-not-a-trace-01' });
  // A keyed feedback: on Temporal its signal is sent through the raw service call, for its request id.
  const waiting = uniqueId('traced-feedback');
  expectStatus(await http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId: waiting, input: {} } }), 200);
  const feedback = await http(api, 'POST', '/workflow/feedback', {
    json: { workflowId: waiting, payload: { approved: true } },
    headers: { traceparent: FEEDBACK_PARENT, 'idempotency-key': uniqueId('traced-key') },
  });
  expectStatus(feedback, 200);
  context.feedback = { requestId: feedback.headers['x-request-id']!, workflowId: waiting };
  await waitUntil(api, waiting, 'completed');
  // A schedule created by a traced request: its fires are not that request's children.
  const scheduleId = uniqueId('traced-schedule');
  const created = await http(api, 'POST', '/schedules', { json: { scheduleId, workflowName: 'arithmetic', input: { n: 1 }, spec: { every: '1s' } }, headers: { traceparent: SCHEDULE_PARENT } });
  expectStatus(created, 201);
  try {
    context.scheduled = await eventually('two fires of the schedule, closed', async () => {
      const runs = (await http(api, 'GET', `/workflow/runs?scheduleId=${scheduleId}&limit=100`)).body.runs as { workflowId: string; status: string }[];
      const closed = runs.filter((run) => run.status === 'completed');
      return closed.length >= 2 ? closed.map((run) => run.workflowId) : undefined;
    });
  } finally {
    expectStatus(await http(api, 'DELETE', `/schedules/${scheduleId}`), 204);
  }
  // The access line of a traced request carries its trace id, so a log line leads to its trace.
  const access = api.logs.find((line) => line.msg === 'http request' && line.requestId === context.traced.requestId);
  assert.is(access?.traceId, INCOMING_TRACE, 'the access line names the trace');
  // Spans are batched; a closing API (and its workers) sends what it holds before it stops.
  context.api = undefined;
  await api.close();
  assert.equal(context.receiver.refused, [], 'every export decoded');
});

test('one trace id runs from the HTTP request through the workflow to each step attempt', ({ receiver, traced }) => {
  const trace = receiver.spans.filter((span) => span.traceId === INCOMING_TRACE);
  const request = requestSpanOf(receiver, traced.requestId);
  assert.is(request.traceId, INCOMING_TRACE, 'the request span joins the incoming trace');
  assert.is(request.parentSpanId, INCOMING_SPAN, 'the request span is a child of the caller\'s span');
  assert.is(request.name, 'POST /workflow/run', 'named after the route template');
  assert.is(request.kind, 2, 'a server span');
  assert.is(request.attributes['http.request.method'], 'POST');
  assert.is(request.attributes['http.response.status_code'], 200);
  assert.is(request.serviceName, 'flowgate-under-test');

  const workflows = trace.filter((span) => span.name === 'RunWorkflow:arithmetic');
  assert.is(workflows.length, 1, `one workflow span in the trace; got ${names(trace)}`);
  const workflow = workflows[0]!;
  assert.ok(ancestors(workflow, trace).includes(request), 'the workflow span descends from the request span');

  const attempts = trace.filter((span) => span.name.startsWith('RunActivity:') && STEP_ACTIVITIES.includes(span.name.slice('RunActivity:'.length)));
  assert.equal(attempts.map((span) => span.name).sort(), STEP_ACTIVITIES.map((name) => `RunActivity:${name}`), `one span per step attempt; got ${names(trace)}`);
  for (const attempt of attempts) assert.ok(ancestors(attempt, trace).includes(workflow), `${attempt.name} descends from the workflow span`);
});

test('a keyed feedback joins its request\'s trace; on Temporal its signal carries the trace into the workflow', ({ receiver, feedback }) => {
  const request = requestSpanOf(receiver, feedback.requestId);
  assert.is(request.traceId, FEEDBACK_TRACE);
  assert.is(request.name, 'POST /workflow/feedback');
  if (engineUnderTest() !== 'temporal') return;
  const trace = receiver.spans.filter((span) => span.traceId === FEEDBACK_TRACE);
  const sent = trace.find((span) => span.name === 'SignalWorkflow:flowgate.feedback');
  assert.ok(sent && ancestors(sent, trace).includes(request), `the signal's client span descends from the request span; got ${names(trace)}`);
  const handled = trace.find((span) => span.name === 'HandleSignal:flowgate.feedback');
  assert.ok(handled && ancestors(handled, trace).includes(sent), `the workflow's handling of the signal descends from it; got ${names(trace)}`);
});

test('the runs a schedule fires begin traces of their own, not the trace of the request that created it', ({ receiver, scheduled }) => {
  const create = receiver.spans.find((span) => span.traceId === SCHEDULE_TRACE && span.name === 'POST /schedules');
  assert.ok(create, 'the create request joined its caller\'s trace');
  const inCreateTrace = receiver.spans.filter((span) => span.traceId === SCHEDULE_TRACE && span.name.startsWith('RunWorkflow:'));
  assert.is(inCreateTrace.length, 0, `no fired run in the create request's trace (${scheduled.length} fired); got ${names(inCreateTrace)}`);
  assert.ok(receiver.spans.filter((span) => span.name === 'RunWorkflow:arithmetic').length >= 3 + scheduled.length, 'the fired runs were traced');
});

test('a request without a traceparent, or with a malformed one, starts a trace of its own with its run in it', ({ receiver, untraced, malformed }) => {
  for (const [what, exchange] of [['without', untraced], ['malformed', malformed]] as const) {
    const request = requestSpanOf(receiver, exchange.requestId);
    assert.is.not(request.traceId, INCOMING_TRACE, `${what}: a new trace`);
    assert.is(request.parentSpanId, '', `${what}: the request span is the trace's root`);
    const trace = receiver.spans.filter((span) => span.traceId === request.traceId);
    const workflow = trace.find((span) => span.name === 'RunWorkflow:arithmetic');
    assert.ok(workflow, `${what}: the run is in the request's trace; got ${names(trace)}`);
    assert.ok(ancestors(workflow, trace).includes(request), `${what}: the workflow span descends from the request span`);
  }
  assert.is.not(requestSpanOf(receiver, untraced.requestId).traceId, requestSpanOf(receiver, malformed.requestId).traceId);
});

test('with OTEL_EXPORTER_OTLP_ENDPOINT unset no OpenTelemetry SDK, exporter or interceptor module is loaded', async () => {
  // The probe's method sees the SDK where it is loaded: in this process, which ran a traced API.
  assert.ok(loadedOpenTelemetry().some((path) => path.includes('/@opentelemetry/sdk-trace-base/')), 'the SDK is in this process\'s module cache');
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  const probe = fileURLToPath(new URL('../support/tracingOffProbe.ts', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', probe], { env: { ...env, FLOWGATE_TEST_ENGINE: engineUnderTest() } });
  const report = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: number; loaded: string[] };
  assert.is(report.status, 200, 'the run completed');
  assert.equal(report.loaded, [], 'no OpenTelemetry SDK, exporter or interceptor module was imported');
});

function loadedOpenTelemetry(): string[] {
  return Object.keys(createRequire(import.meta.url).cache).filter((path) => path.includes('/@opentelemetry/'));
}

function requestSpanOf(receiver: OtlpReceiver, requestId: string): ReceivedSpan {
  const found = receiver.spans.filter((span) => span.attributes['flowgate.request_id'] === requestId);
  assert.is(found.length, 1, `one span for request ${requestId}; got ${names(receiver.spans)}`);
  return found[0]!;
}

/** The span's parent, its parent, ... as far as the trace has them. */
function ancestors(span: ReceivedSpan, trace: readonly ReceivedSpan[]): ReceivedSpan[] {
  const byId = new Map(trace.map((candidate) => [candidate.spanId, candidate]));
  const chain: ReceivedSpan[] = [];
  for (let parent = byId.get(span.parentSpanId); parent && !chain.includes(parent); parent = byId.get(parent.parentSpanId)) chain.push(parent);
  return chain;
}

function names(spans: readonly ReceivedSpan[]): string {
  return spans.map((span) => `${span.name}(${span.traceId.slice(0, 6)})`).join(', ') || 'none';
}

test.run();
