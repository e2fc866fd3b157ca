import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  idempotencyKeyHeader,
  legacyWebhookSignature,
  standardWebhookSignature,
  webhookMessageId,
  webhookSecretKey,
  webhookSecretProblem,
} from '../../adapters/webhook/index.js';

/*
 * The signing scheme of webhook calls and run callbacks (docs/callbacks.md), against the vector of the specification's
 * reference library and the published verifier (the `standardwebhooks` npm package) receivers use.
 */

const whsec = (key: Buffer | string): string => `whsec_${Buffer.from(key).toString('base64')}`;

test('the reference vector: whsec_MfKQ…, msg_p5jX…, 1614265330 and {"test": 2432232314} sign as v1,g0hM9SsE…', () => {
  // The vector of the reference library's tests; computed by hand as well:
  //   printf '%s' 'msg_p5jXN8AQM9LWM0D4loKWxJek.1614265330.{"test": 2432232314}' \
  //     | openssl dgst -sha256 -mac HMAC -macopt hexkey:$(echo MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw | base64 -d | xxd -p -c 100) -binary | base64
  const key = webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  assert.is(key.length, 24);
  assert.is(
    standardWebhookSignature(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}'),
    'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  );
});

test('what is signed verifies with the standardwebhooks package, and a changed body, id or timestamp does not', () => {
  const secret = whsec(Buffer.alloc(32, 7));
  const key = webhookSecretKey(secret);
  const now = Math.floor(Date.now() / 1000);
  const body = '{"v":"2","status":"completed"}';
  const headers = { 'webhook-id': 'wf:r', 'webhook-timestamp': String(now), 'webhook-signature': standardWebhookSignature(key, 'wf:r', now, body) };
  assert.equal(new Webhook(secret).verify(body, headers), JSON.parse(body));
  assert.throws(() => new Webhook(secret).verify(body.replace('completed', 'failed'), headers), /No matching signature/);
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-id': 'wf:other' }), /No matching signature/);
  assert.throws(() => new Webhook(secret).verify(body, { ...headers, 'webhook-timestamp': String(now - 1) }), /No matching signature/);
  assert.throws(() => new Webhook(whsec(Buffer.alloc(32, 8))).verify(body, headers), /No matching signature/);
});

test('a whsec_ secret of 24 to 64 bytes in padded base64 is accepted', () => {
  for (const bytes of [24, 32, 33, 64]) {
    const secret = whsec(Buffer.alloc(bytes, 1));
    assert.is(webhookSecretProblem(secret), undefined, `${bytes} bytes`);
    assert.equal(webhookSecretKey(secret), Buffer.alloc(bytes, 1));
  }
});

test('anything else is refused with the form a secret takes, never quoting it', () => {
  const refused: [string, RegExp][] = [
    ['an-old-raw-secret-of-32-characters', /^must be a Standard Webhooks secret, whsec_ followed by the base64 of 24 to 64 random bytes/],
    [Buffer.alloc(32, 1).toString('base64'), /^must be a Standard Webhooks secret/],
    ['whsec_', /not padded base64/],
    ['whsec_AAAA AAAA', /not padded base64/],
    [`whsec_${Buffer.alloc(32, 250).toString('base64url')}`, /not padded base64/],
    [`whsec_${Buffer.alloc(32, 1).toString('base64').replace(/=+$/, '')}`, /not padded base64/],
    [whsec(Buffer.alloc(16, 1)), /its key has 16 bytes/],
    [whsec(Buffer.alloc(65, 1)), /its key has 65 bytes/],
  ];
  for (const [secret, expected] of refused) {
    const problem = webhookSecretProblem(secret);
    assert.match(problem ?? '', expected, secret);
    if (secret.length > 'whsec_'.length) assert.not.ok(problem!.includes(secret.slice('whsec_'.length)), `the message does not quote ${secret}`);
    assert.throws(() => webhookSecretKey(secret), (error: unknown) => error instanceof RangeError && error.message === `webhook signing secret ${problem}`);
  }
});

test('webhook-id is the Idempotency-Key, with ".", "%" and what is not printable ASCII percent-encoded', () => {
  const runId = '0b7c2f8e-3b1c-4c43-9a53-3b0b6e1f2a11';
  assert.is(webhookMessageId(`order-42:${runId}:webhook-1`), `order-42:${runId}:webhook-1`, 'a usual key is sent as it is');
  assert.is(webhookMessageId(`v1.2:${runId}`), `v1%2E2:${runId}`);
  assert.is(webhookMessageId('50% off:r'), '50%25%20off:r');
  assert.is(webhookMessageId('café😀:r'), 'caf%C3%A9%F0%9F%98%80:r');
  for (const key of [`v1.2:${runId}`, '50% off:r', 'café😀:r', 'a..b:%2E:r']) {
    const id = webhookMessageId(key);
    assert.not.ok(id.includes('.'), `${id} has no full stop, so "<id>.<timestamp>.<body>" splits one way`);
    assert.match(id, /^[\x21-\x7e]+$/, 'printable ASCII: a valid header value');
    assert.is(decodeURIComponent(id), key, 'decodeURIComponent gives the key back');
  }
});

test('the Idempotency-Key header: the key, with "%", spaces and what is not printable ASCII percent-encoded; full stops kept', () => {
  const runId = '0b7c2f8e-3b1c-4c43-9a53-3b0b6e1f2a11';
  for (const usual of [`order-42:${runId}`, `order.42:${runId}:webhook-1`, `${runId}:${runId}`]) assert.is(idempotencyKeyHeader(usual), usual, 'a usual key is sent as it is');
  assert.is(idempotencyKeyHeader('注文-42:r:webhook-1'), '%E6%B3%A8%E6%96%87-42:r:webhook-1');
  assert.is(idempotencyKeyHeader(' café 50%:r'), '%20caf%C3%A9%2050%25:r');
  // Without "%" escaped, a workflowId spelling the escape of another would share its key.
  assert.is.not(idempotencyKeyHeader('%C3%A9:r'), idempotencyKeyHeader('é:r'));
  for (const key of ['注文-42:r', ' café 50%:r', '😀.%2E:r', 'tab\there:r']) {
    const header = idempotencyKeyHeader(key);
    assert.match(header, /^[\x21-\x7e]+$/, 'printable ASCII: a valid header value, with nothing a receiver would trim');
    assert.is(decodeURIComponent(header), key, 'decodeURIComponent gives the key back');
  }
});

test('the legacy X-Flowgate-Signature: hex HMAC of "<timestamp>.<body>" with the same key; an old secret converted to whsec_ signs as before', () => {
  const oldSecret = 'an-old-raw-secret-of-32-characters';
  const key = webhookSecretKey(whsec(oldSecret));
  const body = '{"x":1}';
  assert.is(legacyWebhookSignature(key, 1700000000, body), `sha256=${createHmac('sha256', oldSecret).update(`1700000000.${body}`).digest('hex')}`);
});

test.run();
