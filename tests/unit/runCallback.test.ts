import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';
import {
  callbackRetriesExhausted,
  callbackRetryDelayMs,
  callbackUrlProblem,
  CALLBACK_URL_PATTERN,
  MAX_CALLBACK_URL_LENGTH,
} from '../../core/domain/callback.js';
import { deliverRunCallback } from '../../core/useCases/runCallback.js';
import { FetchWebhookSender } from '../../adapters/webhook/index.js';
import { CallbackDeliveries } from '../../adapters/embedded/index.js';
import { parseOutboundAllowlist } from '../../core/domain/outboundAddress.js';
import { startCallbackReceiver } from '../support/callbackReceiver.js';
import { flush, harness } from './embedded/support.js';
import { eventually } from '../support/eventually.js';

/** The receivers of these tests listen on loopback, which outbound calls refuse unless the allow-list opens it. */
const LOOPBACK = parseOutboundAllowlist('127.0.0.0/8').allowlist;

test('callbackUrl: http and https URLs with a host name or IPv4 address; everything else is refused', () => {
  const accepted = ['http://127.0.0.1:54321/cb', 'https://example.com', 'https://a.b.example/x/y?z=1&w=%41', 'http://localhost:8080/', 'http://a--b.example/', 'https://a.example/x?token=a-b_c~d&n=1'];
  const refused = ['', 'ftp://example.com', 'HTTP://example.com', 'http://', 'http://user@example.com/', 'https://example.com/#top', 'http://[::1]/', 'http://1.2.3.999/', 'http://example.com:65536/', 'http://xn--a.example/', 'http://-a.example/', 'http://a b/', 'http://a.example/?q=<x>', 'http://a.example/?q=a;b>c', `https://example.com/${'x'.repeat(MAX_CALLBACK_URL_LENGTH)}`];
  for (const url of accepted) assert.is(callbackUrlProblem(url), undefined, url);
  for (const url of refused) assert.type(callbackUrlProblem(url), 'string', url);
  // The document's pattern says the same as the check, for the URLs the check accepts.
  const pattern = new RegExp(CALLBACK_URL_PATTERN);
  for (const url of accepted) assert.ok(pattern.test(url), url);
});

test('retries are spaced 1 s, 2 s, 4 s … at most 60 s, and stop when the next would start after the bound', () => {
  assert.equal([1, 2, 3, 4, 6, 7, 20].map(callbackRetryDelayMs), [1_000, 2_000, 4_000, 8_000, 32_000, 60_000, 60_000]);
  // A 4 s bound: after the failed attempt at 1 s (2nd) the next is at 3 s, inside; after the one at 3 s (3rd), at 7 s, outside.
  assert.not.ok(callbackRetriesExhausted(2, 0, 1_000, 4_000));
  assert.ok(callbackRetriesExhausted(3, 0, 3_000, 4_000));
});

const quick = workflow({ name: 'quick', description: 'Completes at once', inputSchema: z.unknown(), outputSchema: z.unknown(), fn: async () => ({ ok: true }) });

test('a delivery waiting to retry ends when the server shuts down, and says so', async () => {
  const receiver = await startCallbackReceiver();
  const h = harness([quick]);
  try {
    const run = await h.run(quick, {});
    await h.outcome(run);
    const shutdown = new AbortController();
    const deps = { engine: h.engine, traces: {}, logger: h.logger, clock: h.clock, sender: new FetchWebhookSender({ allowlist: LOOPBACK }) };
    const delivery = deliverRunCallback(deps, run, { url: receiver.url('/down/shutdown'), retryForMs: 600_000 }, shutdown.signal);
    await receiver.waitForCalls('/down/shutdown', 1);
    await eventually('the delivery to wait on its retry timer', () => h.clock.pendingTimers > 0, { intervalMs: 1 });
    shutdown.abort();
    assert.is(await delivery, 'aborted');
    assert.ok(h.logger.entries.some((line) => line.message.startsWith('run callback abandoned: the server is shutting down')));
    assert.is(receiver.calls('/down/shutdown').length, 1);
  } finally {
    h.close();
    await receiver.close();
  }
});

test('a run whose result cannot be read is not sent, and the reason is logged', async () => {
  const h = harness([quick]);
  const deps = { engine: h.engine, traces: {}, logger: h.logger, clock: h.clock, sender: new FetchWebhookSender({ allowlist: LOOPBACK }) };
  const unknown = { workflowId: 'nobody', runId: '00000000-0000-4000-8000-00000000ffff' };
  assert.is(await deliverRunCallback(deps, unknown, { url: 'http://127.0.0.1:9/never', retryForMs: 1_000 }), 'abandoned');
  const line = h.logger.entries.find((entry) => entry.message.startsWith('run callback not sent'));
  assert.ok(line, 'logged');
  assert.is(line!.fields?.workflowId, 'nobody');
  h.close();
});

test('at most maxPending deliveries are in progress: one more is not sent and logged; a slot frees when one ends', async () => {
  const receiver = await startCallbackReceiver();
  const h = harness([quick]);
  try {
    const deps = { engine: h.engine, traces: {}, logger: h.logger, clock: h.clock, sender: new FetchWebhookSender({ allowlist: LOOPBACK }) };
    const deliveries = new CallbackDeliveries(() => deps, 2);
    const runs = [];
    for (let index = 0; index < 4; index += 1) {
      const run = await h.run(quick, {});
      await h.outcome(run);
      runs.push(run);
    }
    const gate = '/gate/cap';
    const first = deliveries.start(runs[0]!, { url: receiver.url(gate), retryForMs: 600_000 });
    void deliveries.start(runs[1]!, { url: receiver.url('/gate/cap-2'), retryForMs: 600_000 });
    await deliveries.start(runs[2]!, { url: receiver.url('/ok/over-the-cap'), retryForMs: 600_000 });
    const refused = h.logger.entries.filter((line) => line.message === 'run callback not sent: too many deliveries in progress');
    assert.equal(refused.map((line) => line.fields?.runId), [runs[2]!.runId]);
    assert.equal(receiver.calls('/ok/over-the-cap'), [], 'the delivery over the cap sent nothing');
    // The first delivery ends (its receiver takes it on the next attempt): its slot serves the next run.
    await receiver.waitForCalls(gate, 1);
    receiver.open(gate);
    await eventually(
      'the first delivery\'s second attempt',
      async () => {
        if (receiver.calls(gate).length >= 2) return true;
        await h.clock.advance(60_000);
        return false;
      },
      { intervalMs: 10 },
    );
    await first;
    await deliveries.start(runs[3]!, { url: receiver.url('/ok/after-a-slot-freed'), retryForMs: 600_000 });
    assert.is(receiver.calls('/ok/after-a-slot-freed').length, 1);
    deliveries.close();
  } finally {
    h.close();
    await receiver.close();
  }
});

test('a callback whose receiver address is refused is not sent, and the log names the run, the address and the URL redacted', async () => {
  const receiver = await startCallbackReceiver();
  const h = harness([quick]);
  const sender = new FetchWebhookSender();
  try {
    const run = await h.run(quick, {});
    await h.outcome(run);
    const deps = { engine: h.engine, traces: {}, logger: h.logger, clock: h.clock, sender };
    const path = '/ok/refused?token=s3cr3t&sig=abc';
    assert.is(await deliverRunCallback(deps, run, { url: receiver.url(path), retryForMs: 600_000 }), 'address_refused');
    assert.equal(receiver.calls(path), [], 'nothing reached the receiver');
    const lines = h.logger.entries.filter((line) => line.message.startsWith('run callback'));
    assert.equal(lines.map((line) => line.message), ['run callback not sent: its receiver’s address is refused']);
    assert.is(lines[0]!.level, 'error');
    assert.equal(
      { ...lines[0]!.fields, error: undefined },
      { workflowId: run.workflowId, runId: run.runId, url: receiver.url('/ok/refused?token=REDACTED&sig=REDACTED'), address: '127.0.0.1', error: undefined },
    );
    assert.match(String(lines[0]!.fields?.error), /127\.0\.0\.1 is a loopback address/);
    assert.not.ok(JSON.stringify(h.logger.entries).includes('s3cr3t'), 'the secret is in no log line');
  } finally {
    h.close();
    await receiver.close();
    await sender.close();
  }
});

test('every log line of a delivery carries its URL redacted: delivered, refused by the receiver, not sent', async () => {
  const receiver = await startCallbackReceiver();
  const h = harness([quick]);
  const sender = new FetchWebhookSender({ allowlist: LOOPBACK });
  try {
    const run = await h.run(quick, {});
    await h.outcome(run);
    const deps = { engine: h.engine, traces: {}, logger: h.logger, clock: h.clock, sender };
    const secret = (path: string) => receiver.url(`${path}?token=s3cr3t&sig=abc&keep=1`);
    assert.is(await deliverRunCallback(deps, run, { url: secret('/ok/redacted'), retryForMs: 1_000 }), 'delivered');
    assert.is(await deliverRunCallback(deps, run, { url: secret('/refuses/redacted'), retryForMs: 1_000 }), 'refused');
    const unknown = { workflowId: 'nobody', runId: '00000000-0000-4000-8000-00000000ffff' };
    assert.is(await deliverRunCallback(deps, unknown, { url: secret('/ok/unread'), retryForMs: 1_000 }), 'abandoned');
    const deliveries = new CallbackDeliveries(() => deps, 0);
    await deliveries.start(run, { url: secret('/ok/over-the-cap'), retryForMs: 1_000 });
    const lines = h.logger.entries.filter((line) => line.message.startsWith('run callback'));
    assert.is(lines.length, 4);
    for (const line of lines) {
      assert.match(String(line.fields?.url), /\?token=REDACTED&sig=REDACTED&keep=1$/, line.message);
    }
    assert.not.ok(JSON.stringify(h.logger.entries).includes('s3cr3t'), 'the secret is in no log line');
  } finally {
    h.close();
    await receiver.close();
    await sender.close();
  }
});

test.run();
