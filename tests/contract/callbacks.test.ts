import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { uniqueId } from '../support/http.js';
import { startCallbackReceiver, type CallbackReceiver, type ReceivedCallback } from '../support/callbackReceiver.js';
import { contractSuite, expectError, expectIssueAt, expectStatus, http, start, wf } from '../support/contract.js';
import { engineUnderTest } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/** Run-finished callbacks: POST /workflow and /workflow/run with `callbackUrl` (issue 9, docs/callbacks.md). */
const SECRET = `whsec_${Buffer.from('flowgate callbacks contract key!').toString('base64')}`;
const RETRY_SECONDS = 4;
// The receiver listens on loopback, which outbound calls refuse unless the allow-list opens it (tests/contract/outbound.test.ts).
const test = contractSuite('run callbacks', {
  WEBHOOK_SIGNING_SECRET: SECRET,
  CALLBACK_RETRY_MAX_SECONDS: String(RETRY_SECONDS),
  RUN_TIMEOUT_MAX_SECONDS: '60',
  OUTBOUND_ALLOWLIST: '127.0.0.1',
});

let receiver: CallbackReceiver;
test.before(async () => {
  receiver = await startCallbackReceiver();
});
test.after(async () => {
  await receiver?.close();
});

/**
 * The receiver's side of the signature (docs/callbacks.md), as receivers do it: the published standardwebhooks
 * package verifies the raw body with the headers as they came, and refuses the same call with its body changed.
 */
function assertSigned(call: ReceivedCallback): void {
  const headers = Object.fromEntries(Object.entries(call.headers).map(([name, value]) => [name, String(value)]));
  assert.equal(new Webhook(SECRET).verify(call.body, headers), JSON.parse(call.body), 'the standardwebhooks package verifies the call');
  const tampered = call.body.replace('"status":"', '"status":"not-');
  assert.is.not(tampered, call.body);
  assert.throws(() => new Webhook(SECRET).verify(tampered, headers), /No matching signature/, 'a changed body fails verification');
  const key = decodeURIComponent(String(call.headers['idempotency-key']));
  assert.is(decodeURIComponent(String(call.headers['webhook-id'])), key, 'webhook-id is the Idempotency-Key');
  assert.is(call.headers['x-flowgate-signature'], undefined, 'no legacy header without WEBHOOK_LEGACY_SIGNATURE');
}

/**
 * Every attempt carried the same signed JSON body, key and webhook-id (the key, its full stops escaped); the body is
 * what GET .../runs/{rid}/result answers.
 */
async function assertDeliveredResult(api: Parameters<typeof http>[0], calls: ReceivedCallback[], workflowId: string, runId: string): Promise<any> {
  for (const call of calls) {
    assertSigned(call);
    assert.is(call.body, calls[0]!.body, 'every attempt sends exactly the same body');
    assert.is(decodeURIComponent(String(call.headers['idempotency-key'])), `${workflowId}:${runId}`);
    assert.is(decodeURIComponent(String(call.headers['webhook-id'])), `${workflowId}:${runId}`, 'the same webhook-id on every attempt');
    assert.match(String(call.headers['content-type']), /^application\/json/);
  }
  const delivered = JSON.parse(calls[0]!.body);
  const result = await http(api, 'GET', `${wf(workflowId, runId)}/result`);
  expectStatus(result, 200);
  assert.equal(delivered, result.body, 'the callback body is the run’s v2 result');
  return delivered;
}

async function waitForLog(api: { logs: { msg: string; workflowId?: unknown }[] }, message: string, workflowId: string, timeoutMs = 30_000): Promise<void> {
  await eventually(`a "${message}" log line for ${workflowId}`, () => api.logs.some((line) => line.msg.startsWith(message) && line.workflowId === workflowId), { timeoutMs, intervalMs: 50 });
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a completed run is delivered after two failed attempts: the same signed body, keyed workflowId:runId, equal to its result', async ({ api }) => {
  const path = `/flaky/${uniqueId('cb')}`;
  // A full stop in the workflowId: webhook-id escapes it, and the package still verifies every attempt.
  const { workflowId, runId } = await start(api, 'echo', { message: 'hi' }, uniqueId('cb.completed'), { callbackUrl: receiver.url(path) });
  const calls = await receiver.waitForCalls(path, 3);
  assert.equal(calls.map((call) => call.answeredWith), [500, 500, 200]);
  const delivered = await assertDeliveredResult(api, calls, workflowId, runId);
  assert.is(delivered.v, '2');
  assert.is(delivered.status, 'completed');
  assert.equal(delivered.output, { message: 'hi' });
  assert.equal(delivered.input, { message: 'hi' });
  const history = await http(api, 'GET', `${wf(workflowId, runId)}/history?pageSize=200`);
  expectStatus(history, 200);
  const types = history.body.events.map((event: { type: string }) => event.type);
  assert.not.ok(types.includes('child_started'), `the delivery is not a child of the run in its history: ${types.join(', ')}`);
  assert.is(types.at(-1), 'workflow_completed');
});

test('failed and cancelled runs are delivered with the error their result reports', async ({ api }) => {
  const failedPath = `/ok/${uniqueId('cb')}`;
  const failed = await start(api, 'fails_in_workflow', {}, uniqueId('cb-failed'), { callbackUrl: receiver.url(failedPath) });
  const failedBody = await assertDeliveredResult(api, await receiver.waitForCalls(failedPath, 1), failed.workflowId, failed.runId);
  assert.is(failedBody.status, 'failed');
  assert.is(failedBody.error.name, 'RangeError');

  const cancelledPath = `/ok/${uniqueId('cb')}`;
  const cancelled = await start(api, 'cleans_up_on_stop', {}, uniqueId('cb-cancelled'), { callbackUrl: receiver.url(cancelledPath) });
  expectStatus(await http(api, 'PATCH', `${wf(cancelled.workflowId, cancelled.runId)}/stop`), 200);
  const cancelledBody = await assertDeliveredResult(api, await receiver.waitForCalls(cancelledPath, 1), cancelled.workflowId, cancelled.runId);
  assert.is(cancelledBody.status, 'cancelled');
});

test('a continue-as-new chain keeps its callbackUrl and is delivered once, for its last run', async ({ api }) => {
  const path = `/ok/${uniqueId('cb')}`;
  const { workflowId, runId: firstRunId } = await start(api, 'countdown', { n: 2 }, uniqueId('cb-chain'), { callbackUrl: receiver.url(path) });
  const [call] = await receiver.waitForCalls(path, 1);
  const latest = await http(api, 'GET', `${wf(workflowId)}/status`);
  expectStatus(latest, 200);
  assert.is.not(latest.body.runId, firstRunId, 'the chain went on past its first run');
  const delivered = await assertDeliveredResult(api, [call!], workflowId, latest.body.runId);
  assert.equal(delivered.output, { done: true });
  assert.is(receiver.calls(path).length, 1, 'the continued runs were not delivered');
  const runs = await http(api, 'GET', '/workflow/runs?workflowName=flowgate.callback&limit=10');
  expectStatus(runs, 200);
  assert.equal(runs.body.runs, [], 'callback deliveries are not listed as runs');
});

test('a reset run keeps the callbackUrl: it is delivered again, for the new run, when that closes', async ({ api }) => {
  const path = `/ok/${uniqueId('cb')}`;
  const first = await start(api, 'arithmetic', { n: 2 }, uniqueId('cb-reset'), { callbackUrl: receiver.url(path) });
  await receiver.waitForCalls(path, 1);
  const reset = await http(api, 'POST', `${wf(first.workflowId, first.runId)}/reset`, { json: { stepName: 'add_one' } });
  expectStatus(reset, 200);
  const calls = await receiver.waitForCalls(path, 2);
  await assertDeliveredResult(api, [calls[0]!], first.workflowId, first.runId);
  const delivered = await assertDeliveredResult(api, [calls[1]!], first.workflowId, reset.body.runId);
  assert.is(delivered.status, 'completed');
  assert.equal(delivered.output, { result: 6 });
});

test('POST /workflow/run takes a callbackUrl too: the callback carries the result the call answered with', async ({ api }) => {
  const path = `/ok/${uniqueId('cb')}`;
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'sync' }, callbackUrl: receiver.url(path) } });
  expectStatus(response, 200);
  const delivered = await assertDeliveredResult(api, await receiver.waitForCalls(path, 1), response.body.workflowId, response.body.runId);
  assert.equal(delivered, response.body);
});

test('a workflowId beyond ASCII is delivered: its Idempotency-Key and webhook-id percent-encoded (UTF-8), the same on every attempt', async ({ api }) => {
  const path = `/flaky/${uniqueId('cb')}`;
  const workflowId = `注文 42.${uniqueId('cb')}`;
  const { runId } = await start(api, 'echo', { message: 'こんにちは' }, workflowId, { callbackUrl: receiver.url(path) });
  const calls = await receiver.waitForCalls(path, 3);
  assert.equal(calls.map((call) => call.answeredWith), [500, 500, 200]);
  const encoded = `%E6%B3%A8%E6%96%87%2042.${workflowId.slice('注文 42.'.length)}:${runId}`;
  assert.equal(calls.map((call) => call.headers['idempotency-key']), [encoded, encoded, encoded]);
  assert.equal(calls.map((call) => call.headers['webhook-id']), Array(3).fill(encoded.replaceAll('.', '%2E')));
  const delivered = await assertDeliveredResult(api, calls, workflowId, runId);
  assert.equal(delivered.output, { message: 'こんにちは' });
});

if (engineUnderTest() !== 'temporal') {
  test('the embedded engine delivers terminated runs as well', async ({ api }) => {
    const path = `/ok/${uniqueId('cb')}`;
    const { workflowId, runId } = await start(api, 'sleeper', { ms: 600_000 }, uniqueId('cb-terminated'), { callbackUrl: receiver.url(path) });
    expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: { reason: 'enough' } }), 200);
    const delivered = await assertDeliveredResult(api, await receiver.waitForCalls(path, 1), workflowId, runId);
    assert.is(delivered.status, 'terminated');
  });
}

test('a bad callbackUrl is a 400 ValidationError at callbackUrl on both start endpoints, and nothing starts', async ({ api }) => {
  const bad: unknown[] = ['', 'not a url', 'ftp://example.com/x', 'http://user:pw@example.com/', 'https://example.com/#fragment', 'http://[::1]/', '//example.com/', 42, null];
  for (const callbackUrl of bad) {
    for (const endpoint of ['/workflow', '/workflow/run']) {
      const workflowId = uniqueId('cb-bad');
      const response = await http(api, 'POST', endpoint, { json: { workflowName: 'echo', input: { message: 'x' }, workflowId, callbackUrl } });
      expectError(response, 400, 'ValidationError');
      expectIssueAt(response, 'callbackUrl');
      expectError(await http(api, 'GET', `${wf(workflowId)}/status`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
    }
  }
});

test('with OUTBOUND_ALLOW_PUBLIC=off (every test server runs so), a callbackUrl naming a host the allow-list does not name is a 400 at start', async ({ api }) => {
  for (const callbackUrl of ['https://receiver.example/hook?token=t', 'http://93.184.215.14/hook']) {
    for (const endpoint of ['/workflow', '/workflow/run']) {
      const workflowId = uniqueId('cb-unlisted');
      const response = await http(api, 'POST', endpoint, { json: { workflowName: 'echo', input: { message: 'x' }, workflowId, callbackUrl } });
      expectError(response, 400, 'ValidationError');
      expectIssueAt(response, 'callbackUrl');
      assert.match(response.body.message, /is not on OUTBOUND_ALLOWLIST \(OUTBOUND_ALLOW_PUBLIC=off\)/);
      expectError(await http(api, 'GET', `${wf(workflowId)}/status`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
    }
  }
});

test('a receiver that never succeeds is retried with backoff, then given up after CALLBACK_RETRY_MAX_SECONDS', async ({ api }) => {
  const path = `/down/${uniqueId('cb')}`;
  const { workflowId, runId } = await start(api, 'echo', { message: 'nobody home' }, uniqueId('cb-down'), { callbackUrl: receiver.url(path) });
  await waitForLog(api, 'run callback abandoned', workflowId);
  const attempts = receiver.calls(path).length;
  // 1 s, 2 s, 4 s apart: a 4 s bound leaves room for three attempts (at 0, 1 and 3 s), never a fourth (at 7 s); a
  // slow machine may push the second past 2 s, and then the third would start too late.
  assert.ok(attempts >= 2 && attempts <= 3, `retried, and not past the ${RETRY_SECONDS} s bound (${attempts} attempts)`);
  await assertDeliveredResult(api, receiver.calls(path), workflowId, runId);
  await pause(5_000);
  assert.is(receiver.calls(path).length, attempts, 'no attempt after giving up');
});

test('a receiver that refuses the call (4xx) is not asked again; the log line carries the URL with its secrets redacted', async ({ api }) => {
  const path = `/refuses/${uniqueId('cb')}?token=s3cr3t&sig=abc&page=2`;
  const { workflowId, runId } = await start(api, 'echo', { message: 'no thanks' }, uniqueId('cb-refused'), { callbackUrl: receiver.url(path) });
  await waitForLog(api, 'run callback refused', workflowId);
  const line = api.logs.find((entry) => entry.msg.startsWith('run callback refused') && entry.workflowId === workflowId)!;
  assert.is(line.runId, runId);
  assert.is(line.url, receiver.url(path.replace('token=s3cr3t&sig=abc', 'token=REDACTED&sig=REDACTED')));
  assert.equal(api.logs.filter((entry) => JSON.stringify(entry).includes('s3cr3t')), [], 'no log line carries the secret');
  await pause(2_000);
  assert.is(receiver.calls(path).length, 1);
});

test.run();
