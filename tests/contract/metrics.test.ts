import * as assert from 'uvu/assert';
import { call, uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, openEventStream, wf, type ContractContext } from '../support/contract.js';
import { isEmbedded } from '../support/engines.js';
import { parseExposition, promtoolProblems, valueOf, type Exposition } from '../support/prometheus.js';
import { startCallbackReceiver } from '../support/callbackReceiver.js';
import { eventually } from '../support/eventually.js';

/** GET /metrics and METRICS_PORT (docs/operations.md, Metrics): what a scrape shows after real requests. */
const TOKEN = 'metrics-Secret-t0ken_41c9';
const auth = { authorization: `Bearer ${TOKEN}` };
// The callback receiver listens on loopback, which outbound calls refuse unless the allow-list opens it.
const test = contractSuite('metrics', { API_AUTH_TOKEN: TOKEN, METRICS_PORT: '0', OUTBOUND_ALLOWLIST: '127.0.0.1' });

const REQUESTS = 'flowgate_http_request_duration_seconds';

async function runAndWait(context: ContractContext, body: Record<string, unknown>): Promise<any> {
  const response = await http(context.api, 'POST', '/workflow/run', { json: body, headers: auth });
  expectStatus(response, 200, `run ${String(body.workflowName)}`);
  return response.body;
}

async function scrape({ api }: ContractContext): Promise<Exposition> {
  const response = await http(api, 'GET', '/metrics', { headers: auth });
  expectStatus(response, 200, 'a scrape');
  assert.match(response.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
  return parseExposition(response.text);
}

/** Scrapes until `holds` is true of the exposition: what a stream's end changes is seen once the server saw the end. */
async function scrapeUntil(context: ContractContext, holds: (exposition: Exposition) => boolean, what: string): Promise<Exposition> {
  return eventually(`a scrape showing ${what}`, async () => {
    const exposition = await scrape(context);
    return holds(exposition) ? exposition : undefined;
  }, { intervalMs: 100 });
}

test('GET /metrics needs the token; METRICS_PORT serves the same metrics without it, and nothing else', async (context) => {
  const { api } = context;
  expectError(await http(api, 'GET', '/metrics'), 401, 'UnauthorizedError');
  const withToken = await scrape(context);
  assert.is(withToken.types.get(REQUESTS), 'histogram');
  assert.is(withToken.types.get('flowgate_process_cpu_user_seconds_total'), 'counter', "the process's own metrics");
  assert.ok(api.metricsUrl, 'METRICS_PORT=0 started a listener of its own');
  const own = await call({ baseUrl: api.metricsUrl! }, 'GET', '/metrics');
  assert.is(own.status, 200);
  assert.match(own.headers['content-type'] ?? '', /^text\/plain; version=0\.0\.4/);
  assert.equal([...parseExposition(own.text).types.keys()].sort(), [...withToken.types.keys()].sort(), 'the same metric families');
  assert.is((await call({ baseUrl: api.metricsUrl! }, 'GET', '/workflow/list')).status, 404, 'the metrics port serves no API');
});

test('requests by route template, method and status, with histogram buckets; never a raw id in a label', async (context) => {
  const { api } = context;
  const workflowId = uniqueId('metrics-echo');
  const before = await scrape(context);
  expectStatus(await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId, input: { message: 'hi' } }, headers: auth }), 200);
  for (let i = 0; i < 2; i += 1) expectStatus(await http(api, 'GET', `${wf(workflowId)}/status`, { headers: auth }), 200);
  const missing = uniqueId('metrics-missing');
  expectError(await http(api, 'GET', `${wf(missing)}/status`, { headers: auth }), 404, 'WorkflowNotFoundError', { workflowId: missing });
  expectError(await http(api, 'GET', `/no/such/${workflowId}`, { headers: auth }), 404, 'NotFoundError');
  const after = await scrape(context);

  const statusRoute = { route: '/workflow/{id}/status', method: 'GET' };
  const count = (exposition: Exposition, labels: Record<string, string>) => valueOf(exposition, `${REQUESTS}_count`, labels);
  assert.is(count(after, { ...statusRoute, status: '200' }) - count(before, { ...statusRoute, status: '200' }), 2);
  assert.is(count(after, { ...statusRoute, status: '404' }) - count(before, { ...statusRoute, status: '404' }), 1);
  assert.is(count(after, { route: '/workflow/run', method: 'POST', status: '200' }) - count(before, { route: '/workflow/run', method: 'POST', status: '200' }), 1);
  assert.is(count(after, { route: 'unmatched', method: 'GET', status: '404' }) - count(before, { route: 'unmatched', method: 'GET', status: '404' }), 1);
  const labelValues = after.samples.flatMap((sample) => Object.values(sample.labels));
  assert.not.ok(labelValues.some((value) => value.includes('metrics-')), 'no workflow id in any label');
  // A histogram: cumulative buckets up to +Inf, which counts every observation.
  const buckets = after.samples.filter((sample) => sample.name === `${REQUESTS}_bucket` && sample.labels.route === statusRoute.route && sample.labels.status === '200');
  assert.ok(buckets.length > 5, 'several buckets');
  for (let i = 1; i < buckets.length; i += 1) assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'cumulative');
  assert.is(buckets.at(-1)!.labels.le, '+Inf');
  assert.is(buckets.at(-1)!.value, count(after, { ...statusRoute, status: '200' }));
  assert.ok(valueOf(after, `${REQUESTS}_sum`, { ...statusRoute, status: '200' }) > 0, 'durations summed');

  // Engine calls by operation, failures counted apart.
  const calls = (exposition: Exposition, operation: string) => valueOf(exposition, 'flowgate_engine_call_duration_seconds_count', { operation });
  const errors = (exposition: Exposition, operation: string) => valueOf(exposition, 'flowgate_engine_call_errors_total', { operation });
  assert.ok(calls(after, 'start') - calls(before, 'start') >= 1, 'the start');
  assert.ok(calls(after, 'describe') - calls(before, 'describe') >= 3, 'the status reads');
  assert.ok(errors(after, 'describe') - errors(before, 'describe') >= 1, 'the missing run');
});

test('runs started and closed, by workflow and status', async (context) => {
  const { api } = context;
  const before = await scrape(context);
  assert.is((await runAndWait(context, { workflowName: 'echo', input: { message: 'one' } })).status, 'completed');
  assert.is((await runAndWait(context, { workflowName: 'fails_in_step', input: { reason: 'no' } })).status, 'failed');
  const started = (exposition: Exposition, workflow: string) => valueOf(exposition, 'flowgate_runs_started_total', { workflow });
  const closed = (exposition: Exposition, workflow: string, status: string) => valueOf(exposition, 'flowgate_runs_closed_total', { workflow, status });
  const after = await scrape(context);
  assert.is(started(after, 'echo') - started(before, 'echo'), 1);
  assert.is(started(after, 'fails_in_step') - started(before, 'fails_in_step'), 1);
  if (isEmbedded(api.engine)) {
    // Closes happen in the engine: the embedded engine is this process; on Temporal a worker sees them.
    const both = await scrapeUntil(context, (now) => closed(now, 'fails_in_step', 'failed') - closed(before, 'fails_in_step', 'failed') === 1, 'the failed close');
    assert.is(closed(both, 'echo', 'completed') - closed(before, 'echo', 'completed'), 1);
  }
});

test('step attempts by workflow, step and outcome, counted where the steps run (the API process on the embedded engine, the workers on Temporal)', async (context) => {
  const where = stepCounter(context);
  const attempts = (exposition: Exposition, workflow: string, outcome: string) =>
    valueOf(exposition, 'flowgate_step_attempt_duration_seconds_count', { workflow, outcome });
  const before = await where.scrape();
  assert.is((await runAndWait(context, { workflowName: 'echo', input: { message: 'one' } })).status, 'completed');
  assert.is((await runAndWait(context, { workflowName: 'fails_in_step', input: { reason: 'no' } })).status, 'failed');
  const after = await where.scrape();
  assert.is(attempts(after, 'echo', 'success') - attempts(before, 'echo', 'success'), 1, 'echo ran its one step once');
  assert.ok(attempts(after, 'fails_in_step', 'failure') - attempts(before, 'fails_in_step', 'failure') >= 1, 'the failing step failed');
  const stepLabels = after.samples.filter((sample) => sample.name === 'flowgate_step_attempt_duration_seconds_count' && sample.labels.workflow === 'echo');
  assert.ok(stepLabels.length > 0 && stepLabels.every((sample) => sample.labels.step && !sample.labels.step.includes('#')), 'labelled by step name');
  if (context.api.engine === 'temporal') {
    const api = await scrape(context);
    assert.is(api.samples.filter((sample) => sample.name === 'flowgate_step_attempt_duration_seconds_count').length, 0, 'the API process runs no steps');
  }
});

test('open event streams: the gauge goes up while a stream is open and down after it ends', async (context) => {
  const { api } = context;
  const workflowId = uniqueId('metrics-stream');
  expectStatus(await http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', workflowId, input: {} }, headers: auth }), 200);
  const open = (exposition: Exposition) => valueOf(exposition, 'flowgate_event_streams_open');
  const before = open(await scrape(context));
  const stream = await openEventStream(api, `${wf(workflowId)}/history`, auth);
  try {
    assert.is(stream.status, 200);
    assert.ok(await stream.next(), 'the stream sends its first event');
    assert.is(open(await scrape(context)), before + 1);
  } finally {
    stream.close();
  }
  await scrapeUntil(context, (now) => open(now) === before, 'the stream closed');
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { ok: true } }, headers: auth }), 200);
});

test('idempotency hits: a keyed retry answered from its key, by operation', async (context) => {
  const { api } = context;
  const hits = (exposition: Exposition, operation: string) => valueOf(exposition, 'flowgate_idempotency_hits_total', { operation });
  const before = await scrape(context);
  const keyed = (key: string) => ({ ...auth, 'idempotency-key': key });
  const startKey = uniqueId('metrics-key');
  const body = { workflowName: 'awaits_feedback', input: {} };
  const first = await http(api, 'POST', '/workflow', { json: body, headers: keyed(startKey) });
  expectStatus(first, 200);
  const again = await http(api, 'POST', '/workflow', { json: body, headers: keyed(startKey) });
  assert.equal(again.body, first.body, 'the retry gets the stored answer');
  const feedbackKey = uniqueId('metrics-key');
  const feedback = { workflowId: first.body.workflowId, payload: { ok: true } };
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: feedback, headers: keyed(feedbackKey) }), 200);
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: feedback, headers: keyed(feedbackKey) }), 200);
  const after = await scrape(context);
  assert.is(hits(after, 'start') - hits(before, 'start'), 1);
  assert.is(hits(after, 'feedback') - hits(before, 'feedback'), 1);
  assert.is(valueOf(after, 'flowgate_runs_started_total', { workflow: 'awaits_feedback' }) - valueOf(before, 'flowgate_runs_started_total', { workflow: 'awaits_feedback' }), 1, 'one run started');
});

test('concurrent keyed starts: the one run counted started once, the other requests as idempotency hits', async (context) => {
  const { api } = context;
  const started = (exposition: Exposition) => valueOf(exposition, 'flowgate_runs_started_total', { workflow: 'awaits_feedback' });
  const hits = (exposition: Exposition) => valueOf(exposition, 'flowgate_idempotency_hits_total', { operation: 'start' });
  const before = await scrape(context);
  const headers = { ...auth, 'idempotency-key': uniqueId('metrics-concurrent-key') };
  const answers = await Promise.all([1, 2, 3].map(() => http(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', input: {} }, headers })));
  for (const answer of answers) expectStatus(answer, 200);
  assert.is(new Set(answers.map((answer) => answer.body.runId)).size, 1, 'one run for the three');
  const after = await scrape(context);
  assert.is(started(after) - started(before), 1, 'started once');
  assert.is(hits(after) - hits(before), 2, 'the two others answered from the key');
});

test('callback attempts: delivered and failed, counted where the callbacks are sent (the API process on the embedded engine, the workers on Temporal)', async (context) => {
  const receiver = await startCallbackReceiver();
  try {
    const where = stepCounter(context);
    const attempts = (exposition: Exposition, outcome: string) => valueOf(exposition, 'flowgate_callback_attempts_total', { outcome });
    const before = await where.scrape();
    const apiBefore = await scrape(context);
    const path = `/flaky/${uniqueId('metrics-callback')}`;
    await runAndWait(context, { workflowName: 'echo', input: { message: 'call me' }, callbackUrl: receiver.url(path) });
    // The flaky receiver answers 500 twice, then 200.
    await receiver.waitForCalls(path, 3);
    const after = await where.until((now) => attempts(now, 'delivered') - attempts(before, 'delivered') === 1, 'the delivery');
    assert.is(attempts(after, 'failed') - attempts(before, 'failed'), 2);
    if (context.api.engine === 'temporal') {
      // A worker delivers: the API's counters stay where they were.
      const api = await scrape(context);
      assert.is(attempts(api, 'delivered') + attempts(api, 'failed'), attempts(apiBefore, 'delivered') + attempts(apiBefore, 'failed'));
    }
  } finally {
    await receiver.close();
  }
});

test("promtool check metrics finds no problem: the API's /metrics, METRICS_PORT's and (Temporal) a worker's", async (context) => {
  const { api } = context;
  // After the tests above: every family has samples (requests, engine calls, runs, step attempts, callbacks).
  const scrapes: [string, string][] = [
    ['GET /metrics', (await http(api, 'GET', '/metrics', { headers: auth })).text],
    ['METRICS_PORT', (await call({ baseUrl: api.metricsUrl! }, 'GET', '/metrics')).text],
  ];
  if (api.scrapeWorkers) scrapes.push(["a worker's metrics", await api.scrapeWorkers()]);
  for (const [where, text] of scrapes) {
    assert.ok(text.includes('flowgate_http_request_duration_seconds') || where.includes('worker'), `${where}: a real scrape`);
    assert.is(await promtoolProblems(text), '', `${where}: promtool's problems`);
  }
});

test('HEAD /metrics answers as GET without the body (its length announced), on the API and on METRICS_PORT', async (context) => {
  const { api } = context;
  for (const [where, baseUrl, headers] of [
    ['the API', api.baseUrl, auth],
    ['METRICS_PORT', api.metricsUrl!, {}],
  ] as const) {
    const get = await call({ baseUrl }, 'GET', '/metrics', { headers });
    const head = await call({ baseUrl }, 'HEAD', '/metrics', { headers });
    assert.is(head.status, 200, where);
    assert.is(head.text, '', `${where}: no body`);
    assert.is(head.headers['content-type'], get.headers['content-type'], where);
    assert.is(get.headers['content-length'], String(Buffer.byteLength(get.text)), `${where}: GET announces its length`);
    // Not equal to the byte: the text changes between two scrapes (durations, CPU seconds, the GET just counted).
    const announced = Number(head.headers['content-length']);
    assert.ok(Math.abs(announced - get.text.length) < get.text.length / 10, `${where}: HEAD announces about GET's length (${announced} vs ${get.text.length})`);
  }
});

/** Where steps run and callbacks are sent: the API process on the embedded engine, the workers on Temporal. */
function stepCounter(context: ContractContext): { scrape(): Promise<Exposition>; until(holds: (exposition: Exposition) => boolean, what: string): Promise<Exposition> } {
  const workers = context.api.scrapeWorkers;
  if (isEmbedded(context.api.engine) || !workers) {
    assert.ok(isEmbedded(context.api.engine), 'Temporal workers with metrics on can be scraped');
    return { scrape: () => scrape(context), until: (holds, what) => scrapeUntil(context, holds, what) };
  }
  const scrapeWorkers = async () => parseExposition(await workers());
  return {
    scrape: scrapeWorkers,
    until: (holds, what) =>
      eventually(`a scrape of the workers showing ${what}`, async () => {
        const exposition = await scrapeWorkers();
        return holds(exposition) ? exposition : undefined;
      }, { intervalMs: 100 }),
  };
}

test.run();

const off = contractSuite('metrics off', { METRICS: 'off' });

off('METRICS=off: GET /metrics is a 404', async ({ api }) => {
  expectError(await http(api, 'GET', '/metrics'), 404, 'NotFoundError');
  assert.is(api.metricsUrl, undefined);
});

off.run();
