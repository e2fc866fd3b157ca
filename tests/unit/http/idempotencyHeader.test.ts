import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, harness } from './appHarness.js';
import { EXPIRES_AT, RUN_ID } from './fakeApi.js';

/* The Idempotency-Key header at the HTTP edge: which API method it selects, its validation, Idempotency-Expires. */

const START = { workflowName: 'echo', input: { message: 'hi' } };

test('without the header the methods are called without a key and no Idempotency-Expires is sent', async () => {
  const h = harness();
  const answer = await call(h, 'POST', '/workflow', { json: START });
  assert.is(answer.status, 200);
  assert.is(answer.headers['idempotency-expires'], undefined);
  assert.equal(h.api.calls.map((c) => c.method), ['start']);
  assert.equal(h.api.lastCall('start')?.at(-1), {});
});

test('with the header each keyed endpoint passes the key to its method and announces the expiry', async () => {
  const cases: [string, string, unknown, string][] = [
    ['POST', '/workflow', START, 'start'],
    ['POST', '/workflow/run', { ...START, timeout: 5 }, 'runAndWait'],
    ['POST', '/workflow/feedback', { workflowId: 'wf', payload: {} }, 'sendFeedback'],
    ['POST', `/workflow/wf/runs/${RUN_ID}/terminate`, { reason: 'r' }, 'terminate'],
    ['POST', `/workflow/wf/runs/${RUN_ID}/reset`, { stepName: 's' }, 'reset'],
    ['POST', '/workflow/wf/reset', { stepName: 's' }, 'reset'],
  ];
  for (const [method, path, json, apiMethod] of cases) {
    const h = harness();
    const answer = await call(h, method, path, { json, headers: { 'idempotency-key': 'key-1' } });
    assert.is(answer.status, 200, `${path}: ${answer.text}`);
    assert.is(answer.headers['idempotency-expires'], EXPIRES_AT.toUTCString(), path);
    const keyed = h.api.calls.find((c) => c.method === apiMethod);
    assert.ok(keyed, `${path} called ${apiMethod}`);
    assert.equal(keyed!.args.at(-1), { idempotencyKey: 'key-1' });
  }
});

test('the keyed deprecated reset does not describe the latest run first (a retry must not resolve the run it made)', async () => {
  const h = harness();
  const answer = await call(h, 'POST', '/workflow/wf/reset', { json: { stepName: 's' }, headers: { 'idempotency-key': 'k' } });
  assert.is(answer.status, 200);
  assert.not.ok(h.api.calls.some((c) => c.method === 'getStatus'));
  assert.equal(h.api.lastCall('reset')?.[0], { workflowId: 'wf' });
  assert.is(answer.headers['link'], '</workflow/{id}/runs/{rid}/reset>; rel="successor-version"');
});

test('a malformed key, or the header sent twice, is 400 ValidationError at idempotency-key and calls nothing', async () => {
  for (const value of ['', 'with space', 'x'.repeat(256), 'é', ['a', 'b']] as const) {
    const h = harness();
    const response = await h.app.handle({
      method: 'POST',
      url: '/workflow',
      headers: { 'content-type': 'application/json', 'idempotency-key': value },
      body: (async function* () {
        yield new TextEncoder().encode(JSON.stringify(START));
      })(),
      signal: new AbortController().signal,
    });
    assert.is(response.status, 400, JSON.stringify(value));
    const body = JSON.parse(response.body as string);
    assert.is(body.error, 'ValidationError');
    assert.equal(body.issues[0].path, ['idempotency-key']);
    assert.equal(h.api.calls, [], 'nothing was called');
  }
});

test.run();
