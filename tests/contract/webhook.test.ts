import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { uniqueId, waitForEvent } from '../support/http.js';
import { contractSuite, expectStatus, historyEvents, http, start, waitUntil, wf } from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** docs/api.md, "Webhook calls made by workflows", observed by a target listening on loopback. */
const KEY = Buffer.from('flowgate webhook calls contract key');
const SECRET = `whsec_${KEY.toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.from('flowgate webhook calls old contract key').toString('base64')}`;
// Two secrets, as during a rotation, and the deprecated X-Flowgate-* headers on (callbacks.test.ts runs without them).
// The targets listen on loopback, which outbound calls refuse unless the allow-list opens it (tests/contract/outbound.test.ts).
const test = contractSuite('webhook calls', {
  WEBHOOK_SIGNING_SECRET: `${SECRET} ${OLD_SECRET}`,
  WEBHOOK_LEGACY_SIGNATURE: 'on',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
});

/** What a receiver does with the published standardwebhooks package: verify the raw body with the headers as they came. */
function verify(secret: string, body: string, headers: IncomingHttpHeaders): unknown {
  return new Webhook(secret).verify(body, Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, String(value)])));
}

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
  await eventually(() => `${count} call(s) to reach the target, got ${target.calls.length}`, () => target.calls.length >= count, { intervalMs: 25 });
}

test('the call: JSON {workflowId, runId, workflowName, payload}, Idempotency-Key, signed as Standard Webhooks with each secret, and the legacy headers', async ({ api }) => {
  const target = await startTarget();
  try {
    const { workflowId, runId } = await start(api, 'awaits_feedback', { url: target.url }, uniqueId('wh-call'));
    await waitForCalls(target, 1);
    const [call] = target.calls;
    assert.match(call!.headers['content-type'] ?? '', /^application\/json/);
    assert.equal(JSON.parse(call!.body), { workflowId, runId, workflowName: 'awaits_feedback', payload: { question: 'approve?' } });
    const key = String(call!.headers['idempotency-key'] ?? '');
    assert.ok(key.startsWith(`${workflowId}:${runId}:`) && key.length > `${workflowId}:${runId}:`.length, `Idempotency-Key ${key}`);
    assert.is(call!.headers['webhook-id'], key);
    assert.match(String(call!.headers['webhook-signature']), /^v1,\S+ v1,\S+$/, 'one signature per secret');
    for (const secret of [SECRET, OLD_SECRET]) assert.equal(verify(secret, call!.body, call!.headers), JSON.parse(call!.body), 'the standardwebhooks package verifies it');
    assert.throws(() => verify(SECRET, call!.body.replace('approve?', 'reject?'), call!.headers), /No matching signature/, 'a changed body fails verification');
    // WEBHOOK_LEGACY_SIGNATURE=on (deprecated): the headers of earlier releases, keyed with the first secret's bytes.
    const timestamp = String(call!.headers['x-flowgate-timestamp'] ?? '');
    assert.is(timestamp, call!.headers['webhook-timestamp']);
    assert.ok(Math.abs(Number(timestamp) - Date.now() / 1000) < 600, 'a current timestamp');
    const expected = `sha256=${createHmac('sha256', KEY).update(`${timestamp}.${call!.body}`).digest('hex')}`;
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

test('a 5xx answer is retried with the same Idempotency-Key and webhook-id, each attempt verifying; the run goes on', async ({ api }) => {
  const target = await startTarget([503]);
  try {
    // A full stop in the workflowId: webhook-id escapes it, and the package still verifies every attempt.
    const { workflowId } = await start(api, 'awaits_feedback', { url: target.url }, uniqueId('wh.retry'));
    await waitForCalls(target, 2);
    assert.is(target.calls[0]!.headers['idempotency-key'], target.calls[1]!.headers['idempotency-key']);
    assert.is(target.calls[0]!.headers['webhook-id'], target.calls[1]!.headers['webhook-id']);
    assert.is(target.calls[0]!.headers['webhook-id'], String(target.calls[0]!.headers['idempotency-key']).replaceAll('.', '%2E'));
    for (const call of target.calls) verify(SECRET, call.body, call.headers);
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
