import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uniqueId, waitForEvent } from '../support/http.js';
import { contractSuite, expectStatus, historyEvents, http, start, waitUntil, wf } from '../support/contract.js';

/** docs/api.md, "Webhook calls made by workflows", observed by a target listening on loopback. */
const SECRET = 'contract-webhook-secret';
// The targets listen on loopback, which outbound calls refuse unless the allow-list opens it (tests/contract/outbound.test.ts).
const test = contractSuite('webhook calls', { WEBHOOK_SIGNING_SECRET: SECRET, OUTBOUND_ALLOWLIST: '127.0.0.1' });

interface ReceivedCall {
  headers: IncomingHttpHeaders;
  body: string;
}

interface Target {
  url: string;
  calls: ReceivedCall[];
  /** Status codes to answer, in order; 200 once they run out. */
  answers: number[];
  close(): Promise<void>;
}

async function startTarget(answers: number[] = []): Promise<Target> {
  const calls: ReceivedCall[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      calls.push({ headers: request.headers, body });
      response.statusCode = target.answers.shift() ?? 200;
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const target: Target = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls,
    answers,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  return target;
}

async function waitForCalls(target: Target, count: number): Promise<void> {
  for (let attempt = 0; target.calls.length < count && attempt < 800; attempt++) await new Promise((resolve) => setTimeout(resolve, 25));
  assert.ok(target.calls.length >= count, `${count} call(s) reached the target, got ${target.calls.length}`);
}

test('the call: JSON {workflowId, runId, workflowName, payload}, Idempotency-Key and an HMAC signature', async ({ api }) => {
  const target = await startTarget();
  try {
    const { workflowId, runId } = await start(api, 'awaits_feedback', { url: target.url }, uniqueId('wh-call'));
    await waitForCalls(target, 1);
    const [call] = target.calls;
    assert.match(call!.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(JSON.parse(call!.body), { workflowId, runId, workflowName: 'awaits_feedback', payload: { question: 'approve?' } });
    const key = String(call!.headers['idempotency-key'] ?? '');
    assert.ok(key.startsWith(`${workflowId}:${runId}:`) && key.length > `${workflowId}:${runId}:`.length, `Idempotency-Key ${key}`);
    const timestamp = String(call!.headers['x-flowgate-timestamp'] ?? '');
    assert.match(timestamp, /^\d{9,11}$/, 'epoch seconds');
    assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 600, 'a current timestamp');
    const expected = `sha256=${createHmac('sha256', SECRET).update(`${timestamp}.${call!.body}`).digest('hex')}`;
    assert.is(call!.headers['x-flowgate-signature'], expected);

    expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true } } }), 200);
    await waitUntil(api, workflowId, 'completed');
    const result = await http(api, 'GET', `${wf(workflowId)}/result`);
    assert.equal(result.body.output, { reply: { approved: true } });
    const events = await historyEvents(api, workflowId, runId);
    const stepDone = events.findIndex((event) => event.type === 'step_completed');
    const signal = events.findIndex((event) => event.type === 'signal_received');
    assert.ok(stepDone !== -1 && stepDone < signal, 'the call is a step in history, before the reply');
    const trace = await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`);
    assert.ok(trace.body.data.steps.length >= 1, 'the call is in the trace');
  } finally {
    await target.close();
  }
});

test('a 5xx answer is retried with the same Idempotency-Key; the run goes on', async ({ api }) => {
  const target = await startTarget([503]);
  try {
    const { workflowId } = await start(api, 'awaits_feedback', { url: target.url }, uniqueId('wh-retry'));
    await waitForCalls(target, 2);
    assert.is(target.calls[0]!.headers['idempotency-key'], target.calls[1]!.headers['idempotency-key']);
    await waitForEvent(api, workflowId, 'step_completed');
    expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { late: 'ok' } } }), 200);
    await waitUntil(api, workflowId, 'completed');
  } finally {
    await target.close();
  }
});

test('a 4xx answer fails the wait at once: the run ends failed, the target called once', async ({ api }) => {
  const target = await startTarget([404]);
  try {
    const { workflowId } = await start(api, 'awaits_feedback', { url: target.url }, uniqueId('wh-4xx'));
    await waitUntil(api, workflowId, 'failed');
    assert.is(target.calls.length, 1);
    const result = await http(api, 'GET', `${wf(workflowId)}/result`);
    assert.is(result.body.status, 'failed');
    assert.type(result.body.error.message, 'string');
  } finally {
    await target.close();
  }
});

test('a wait with a time limit fails with a clear error when no reply comes', async ({ api }) => {
  const { workflowId } = await start(api, 'awaits_feedback', { timeoutMs: 100 }, uniqueId('wh-timeout'));
  await waitUntil(api, workflowId, 'failed');
  const result = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.is(result.body.status, 'failed');
  assert.match(result.body.error.message, /\d/, `the error names the limit: ${result.body.error.message}`);
});

test.run();
