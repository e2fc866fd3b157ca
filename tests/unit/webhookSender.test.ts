import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { FetchWebhookSender, type ResolveHost } from '../../adapters/webhook/index.js';
import { OutboundAddressRefusedError } from '../../core/definition/failures.js';
import { parseOutboundAllowlist } from '../../core/domain/outboundAddress.js';

/*
 * The sender against real receivers on loopback. Loopback is refused by default, so the tests that want a call to
 * arrive open it with the allow-list, and the refusal tests leave it shut: a receiver that got nothing proves the
 * refusal. Names are resolved by an injected resolver, never by DNS.
 */

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Receiver {
  port: number;
  received: Received[];
  close(): Promise<void>;
}

type Answer = (request: Received, response: ServerResponse) => void;

async function startReceiver(answer: Answer | number = 200, host = '127.0.0.1'): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const request = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body };
    received.push(request);
    if (typeof answer === 'number') res.writeHead(answer).end();
    else answer(request, res);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function withReceiver(answer: Answer | number, run: (receiver: Receiver) => Promise<void>, host?: string): Promise<void> {
  const receiver = await startReceiver(answer, host);
  try {
    await run(receiver);
  } finally {
    await receiver.close();
  }
}

const LOOPBACK = parseOutboundAllowlist('127.0.0.0/8,::1').allowlist;
const call = { url: '', workflowId: 'wf', runId: 'r', workflowName: 'approval', payload: { q: 1 }, idempotencyKey: 'wf:r:webhook-1' };
const refusal = (error: unknown): OutboundAddressRefusedError => {
  assert.instance(error, OutboundAddressRefusedError, `refused by address, got ${String(error)}`);
  assert.is((error as OutboundAddressRefusedError).nonRetryable, true);
  return error as OutboundAddressRefusedError;
};
/** A resolver that answers every name with `addresses` and records what it was asked. */
const resolverOf = (addresses: string[], asked: string[] = []): ResolveHost => async (hostname) => {
  asked.push(hostname);
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

const SECRET = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const NEXT_SECRET = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
/** The headers as a receiver hands them to the standardwebhooks package. */
const headersOf = (request: Received): Record<string, string> =>
  Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));

test('posts the call signed as Standard Webhooks: webhook-id (the Idempotency-Key), webhook-timestamp, webhook-signature', async () => {
  await withReceiver(202, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ signingSecrets: [SECRET], allowlist: LOOPBACK });
    await sender.send({ ...call, url: `http://127.0.0.1:${port}/hook` });
    const [request] = received;
    assert.ok(request);
    assert.equal(JSON.parse(request.body), { workflowId: 'wf', runId: 'r', workflowName: 'approval', payload: { q: 1 } });
    assert.is(request.headers['content-type'], 'application/json');
    assert.is(request.headers['idempotency-key'], 'wf:r:webhook-1');
    assert.is(request.headers['webhook-id'], 'wf:r:webhook-1');
    assert.match(String(request.headers['webhook-timestamp']), /^\d+$/);
    assert.match(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    assert.equal(new Webhook(SECRET).verify(request.body, headersOf(request)), JSON.parse(request.body), 'the standardwebhooks package verifies it');
    assert.throws(() => new Webhook(SECRET).verify(request.body.replace('approval', 'other'), headersOf(request)), /No matching signature/);
    assert.is(request.headers['x-flowgate-signature'], undefined, 'no legacy header unless asked for');
    assert.is(request.headers['x-flowgate-timestamp'], undefined);
    await sender.close();
  });
});

test('a key beyond Latin-1 (a workflowId in Japanese) is sent percent-encoded in Idempotency-Key and webhook-id, not refused by the HTTP client', async () => {
  await withReceiver(200, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ signingSecrets: [SECRET], allowlist: LOOPBACK });
    await sender.send({ ...call, workflowId: '注文.42', url: `http://127.0.0.1:${port}/hook`, idempotencyKey: '注文.42:r:webhook-1' });
    await sender.deliver({ url: `http://127.0.0.1:${port}/cb`, body: '{"v":"2"}', idempotencyKey: '注文.42:r' });
    assert.equal(received.map((request) => request.headers['idempotency-key']), ['%E6%B3%A8%E6%96%87.42:r:webhook-1', '%E6%B3%A8%E6%96%87.42:r']);
    assert.equal(received.map((request) => request.headers['webhook-id']), ['%E6%B3%A8%E6%96%87%2E42:r:webhook-1', '%E6%B3%A8%E6%96%87%2E42:r']);
    assert.equal(JSON.parse(received[0]!.body).workflowId, '注文.42', 'the body carries the workflowId as it is');
    for (const request of received) assert.ok(new Webhook(SECRET).verify(request.body, headersOf(request)), 'the standardwebhooks package verifies it');
    await sender.close();
  });
});

test('each attempt is signed anew at its own time; the id stays that of the call', async () => {
  let now = 1700000000;
  await withReceiver(200, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ signingSecrets: [SECRET], nowSeconds: () => now, allowlist: LOOPBACK });
    const post = { url: `http://127.0.0.1:${port}/cb`, body: '{"v":"2"}', idempotencyKey: 'order.7:r' };
    await sender.deliver(post);
    now += 5;
    await sender.deliver(post);
    assert.equal(received.map((request) => request.headers['webhook-id']), ['order%2E7:r', 'order%2E7:r'], 'the full stop of the key is escaped');
    assert.equal(received.map((request) => request.headers['idempotency-key']), ['order.7:r', 'order.7:r']);
    assert.equal(received.map((request) => request.headers['webhook-timestamp']), ['1700000000', '1700000005']);
    const key = Buffer.alloc(32, 1);
    for (const request of received) {
      const timestamp = request.headers['webhook-timestamp'];
      const expected = `v1,${createHmac('sha256', key).update(`order%2E7:r.${timestamp}.${post.body}`).digest('base64')}`;
      assert.is(request.headers['webhook-signature'], expected);
    }
    await sender.close();
  });
});

test('two secrets (a rotation): two space-separated signatures, and a receiver with either secret verifies the call', async () => {
  await withReceiver(200, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ signingSecrets: [NEXT_SECRET, SECRET], allowlist: LOOPBACK });
    await sender.send({ ...call, url: `http://127.0.0.1:${port}/hook` });
    const [request] = received;
    assert.match(String(request!.headers['webhook-signature']), /^v1,\S+ v1,\S+$/);
    for (const secret of [SECRET, NEXT_SECRET]) new Webhook(secret).verify(request!.body, headersOf(request!));
    assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 3).toString('base64')}`).verify(request!.body, headersOf(request!)), /No matching signature/);
    await sender.close();
  });
});

test('legacySignature (deprecated): X-Flowgate-Timestamp and X-Flowgate-Signature as before, keyed with the first secret', async () => {
  await withReceiver(200, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ signingSecrets: [SECRET, NEXT_SECRET], legacySignature: true, nowSeconds: () => 1700000000, allowlist: LOOPBACK });
    await sender.send({ ...call, url: `http://127.0.0.1:${port}/hook` });
    const [request] = received;
    assert.is(request!.headers['x-flowgate-timestamp'], '1700000000');
    const expected = `sha256=${createHmac('sha256', Buffer.alloc(32, 1)).update(`1700000000.${request!.body}`).digest('hex')}`;
    assert.is(request!.headers['x-flowgate-signature'], expected);
    assert.is(request!.headers['webhook-timestamp'], '1700000000', 'the Standard Webhooks headers are sent as well');
    await sender.close();
  });
});

test('a secret that is not whsec_ base64, or legacySignature without a secret, is refused when the sender is made', () => {
  assert.throws(() => new FetchWebhookSender({ signingSecrets: ['k'] }), (error: unknown) => error instanceof RangeError && /must be a Standard Webhooks secret/.test(error.message));
  assert.throws(() => new FetchWebhookSender({ legacySignature: true }), /legacySignature needs options\.signingSecrets/);
});

test('unsigned without a secret; 5xx is retryable, 4xx is not', async () => {
  const sender = new FetchWebhookSender({ allowlist: LOOPBACK });
  await withReceiver(503, async ({ port, received }) => {
    const error = await sender.send({ ...call, url: `http://127.0.0.1:${port}/hook` }).catch((e: Error) => e);
    assert.instance(error, Error);
    assert.is((error as Error & { nonRetryable?: boolean }).nonRetryable, undefined);
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'x-flowgate-signature']) assert.is(received[0]?.headers[header], undefined, header);
    assert.is(received[0]?.headers['idempotency-key'], 'wf:r:webhook-1');
  });
  await withReceiver(400, async ({ port }) => {
    const error = await sender.send({ ...call, url: `http://127.0.0.1:${port}/hook` }).catch((e: Error) => e);
    assert.is((error as Error & { nonRetryable?: boolean }).nonRetryable, true);
  });
  await sender.close();
});

test('loopback is refused by default, in every spelling of its address: nothing reaches the receiver', async () => {
  const sender = new FetchWebhookSender();
  await withReceiver(200, async ({ port, received }) => {
    for (const host of ['127.0.0.1', '127.1', '2130706433', '0x7f.1', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]']) {
      const error = refusal(await sender.send({ ...call, url: `http://${host}:${port}/hook` }).catch((e: unknown) => e));
      assert.is(error.address.replace(/^::ffff:7f00:1$/, '127.0.0.1'), '127.0.0.1', host);
    }
    assert.equal(received, []);
  });
  await withReceiver(200, async ({ port, received }) => {
    refusal(await sender.send({ ...call, url: `http://[::1]:${port}/hook` }).catch((e: unknown) => e));
    assert.equal(received, []);
  }, '::1');
  await sender.close();
});

test('a refusal names the target, the address and the rule, with the URL redacted', async () => {
  const sender = new FetchWebhookSender();
  await withReceiver(200, async ({ port }) => {
    const url = `http://127.0.0.1:${port}/hook?token=s3cr3t&sig=abc&page=2`;
    const error = refusal(await sender.deliver({ url, body: '{}', idempotencyKey: 'wf:r' }).catch((e: unknown) => e));
    assert.is(
      error.message,
      `callback receiver http://127.0.0.1:${port}/hook?token=REDACTED&sig=REDACTED&page=2 not called: 127.0.0.1 is a loopback address (127.0.0.0/8); OUTBOUND_ALLOWLIST can open it`,
    );
    assert.is(error.host, '127.0.0.1');
  });
  await sender.close();
});

test('a host name is checked on every address it resolves to, before connecting', async () => {
  const asked: string[] = [];
  // 10.0.0.1 is refused in the lookup itself: no connection is attempted, so no packet leaves loopback.
  const privateName = new FetchWebhookSender({ resolve: resolverOf(['10.0.0.1'], asked) });
  const error = refusal(await privateName.send({ ...call, url: 'http://hooks.internal.example:8080/hook' }).catch((e: unknown) => e));
  assert.equal(asked, ['hooks.internal.example']);
  assert.is(error.address, '10.0.0.1');
  assert.match(error.message, /hooks\.internal\.example resolves to 10\.0\.0\.1, a private address \(10\.0\.0\.0\/8\)/);
  await privateName.close();

  await withReceiver(200, async ({ port, received }) => {
    const toLoopback = new FetchWebhookSender({ resolve: resolverOf(['127.0.0.1']) });
    refusal(await toLoopback.send({ ...call, url: `http://receiver.example:${port}/hook` }).catch((e: unknown) => e));
    // One refused address among allowed ones refuses the name: the first (allowed, loopback here) is never tried.
    const mixed = new FetchWebhookSender({ resolve: resolverOf(['127.0.0.1', '10.0.0.1']), allowlist: parseOutboundAllowlist('127.0.0.1').allowlist });
    const mixedError = refusal(await mixed.send({ ...call, url: `http://receiver.example:${port}/hook` }).catch((e: unknown) => e));
    assert.is(mixedError.address, '10.0.0.1');
    assert.equal(received, []);
    // The allow-list can name the host: then what it resolves to is called.
    const named = new FetchWebhookSender({ resolve: resolverOf(['127.0.0.1']), allowlist: parseOutboundAllowlist('receiver.example').allowlist });
    await named.send({ ...call, url: `http://receiver.example:${port}/hook` });
    assert.is(received.length, 1);
    assert.is(received[0]!.headers.host, `receiver.example:${port}`);
    await Promise.all([toLoopback.close(), mixed.close(), named.close()]);
  });
});

test('OUTBOUND_ALLOW_PUBLIC=off: a host the allow-list does not name is refused without a lookup; a named one is called', async () => {
  await withReceiver(200, async ({ port, received }) => {
    const asked: string[] = [];
    const allowlist = { ...parseOutboundAllowlist('receiver.example').allowlist, listedOnly: true };
    const sender = new FetchWebhookSender({ resolve: resolverOf(['127.0.0.1'], asked), allowlist });
    const error = refusal(await sender.send({ ...call, url: `http://elsewhere.example:${port}/hook?token=t` }).catch((e: unknown) => e));
    assert.equal(asked, [], 'never resolved');
    assert.is(error.address, 'elsewhere.example');
    assert.match(error.message, /elsewhere\.example is not on OUTBOUND_ALLOWLIST \(OUTBOUND_ALLOW_PUBLIC=off\)/);
    assert.not.match(error.message, /token=t/);
    await sender.send({ ...call, url: `http://receiver.example:${port}/hook` });
    assert.equal(asked, ['receiver.example']);
    assert.is(received.length, 1);
    await sender.close();
  });
});

test('a name that always means loopback (localhost, *.localhost) is refused by its name, without a lookup, unless the list opens loopback', async () => {
  await withReceiver(200, async ({ port, received }) => {
    const asked: string[] = [];
    // A resolver that maps the name elsewhere (a public address) changes nothing: the name alone decides.
    const sender = new FetchWebhookSender({ resolve: resolverOf(['93.184.215.14'], asked) });
    for (const host of ['localhost', 'LOCALHOST', 'hooks.localhost']) {
      const error = refusal(await sender.send({ ...call, url: `http://${host}:${port}/hook` }).catch((e: unknown) => e));
      assert.is(error.address, host.toLowerCase());
      assert.match(error.message, /localhost is a loopback name/);
    }
    assert.equal(asked, [], 'never resolved');
    assert.equal(received, []);
    await sender.close();
    // Opened by a loopback address: the name is resolved, and the address it resolves to decides.
    const opened = new FetchWebhookSender({ resolve: resolverOf(['127.0.0.1'], asked), allowlist: parseOutboundAllowlist('127.0.0.1').allowlist });
    await opened.send({ ...call, url: `http://localhost:${port}/hook` });
    assert.equal(asked, ['localhost']);
    assert.is(received.length, 1);
    await opened.close();
  });
});

test('a rebinding name cannot slip through: each connection checks the address it connects to', async () => {
  // The first answer is allowed (127.0.0.2, where nothing listens), the next ones are refused (127.0.0.1, where the
  // receiver is). A check on one lookup and a connection on another would reach the receiver.
  let lookups = 0;
  const rebinding: ResolveHost = async () => [{ address: (lookups += 1) === 1 ? '127.0.0.2' : '127.0.0.1', family: 4 }];
  await withReceiver(200, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ resolve: rebinding, allowlist: parseOutboundAllowlist('127.0.0.2').allowlist });
    const first = await sender.send({ ...call, url: `http://rebind.example:${port}/hook` }).catch((e: unknown) => e);
    assert.not.instance(first, OutboundAddressRefusedError, 'the first lookup was allowed; its address refused the connection');
    assert.instance(first, Error);
    refusal(await sender.send({ ...call, url: `http://rebind.example:${port}/hook` }).catch((e: unknown) => e));
    assert.equal(received, []);
    assert.is(lookups, 2);
    await sender.close();
  });
});

test('every redirect is checked again: a redirect to a refused address is not followed', async () => {
  await withReceiver(200, async (inner) => {
    const redirect: Answer = (_request, response) => response.writeHead(307, { location: `http://127.0.0.1:${inner.port}/inner` }).end();
    await withReceiver(redirect, async (outer) => {
      // The outer receiver is allowed by its name; the hop names loopback by address, which the allow-list does not open.
      const sender = new FetchWebhookSender({ resolve: resolverOf(['127.0.0.1']), allowlist: parseOutboundAllowlist('outer.example').allowlist });
      const error = refusal(await sender.send({ ...call, url: `http://outer.example:${outer.port}/hook` }).catch((e: unknown) => e));
      assert.match(error.message, new RegExp(`^webhook target http://127\\.0\\.0\\.1:${inner.port}/inner \\(redirected from http://outer\\.example:${outer.port}/hook\\) not called`));
      assert.is(outer.received.length, 1);
      assert.equal(inner.received, []);
      await sender.close();
    });
  });
});

test('only a 2xx is a delivery: a 3xx with no redirect to follow (300, 304, a 302 without Location) is a refusal, not retried', async () => {
  for (const status of [300, 302, 304]) {
    await withReceiver(status, async ({ port, received }) => {
      const sender = new FetchWebhookSender({ allowlist: LOOPBACK });
      const error = await sender.send({ ...call, url: `http://127.0.0.1:${port}/hook` }).catch((e: Error) => e);
      assert.instance(error, Error, `${status} is not a delivery`);
      assert.is((error as Error & { nonRetryable?: boolean }).nonRetryable, true);
      assert.match((error as Error).message, new RegExp(`answered ${status} with no redirect to follow`));
      assert.is(received.length, 1);
      await sender.close();
    });
  }
});

test('a redirect that drops the body (a 302 to a GET) drops the signatures of that body too', async () => {
  const answer: Answer = (request, response) => {
    if (request.path === '/start') return void response.writeHead(302, { location: '/seen' }).end();
    response.writeHead(204).end();
  };
  await withReceiver(answer, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ allowlist: LOOPBACK, signingSecrets: [SECRET] });
    await sender.send({ ...call, url: `http://127.0.0.1:${port}/start` });
    assert.equal(received.map((request) => `${request.method} ${request.path}`), ['POST /start', 'GET /seen']);
    assert.ok(received[0]!.headers['webhook-signature'], 'the POST is signed');
    for (const header of ['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type']) assert.is(received[1]!.headers[header], undefined, header);
    assert.is(received[1]!.headers['idempotency-key'], 'wf:r:webhook-1');
    await sender.close();
  });
});

test('allowed redirects are followed as fetch does: 307/308 repeat the POST, 303 turns it into a GET; at most 5 hops', async () => {
  let hops = 0;
  const answer: Answer = (request, response) => {
    if (request.path === '/loop') return void response.writeHead(302, { location: '/loop' }).end();
    if (request.path === '/start') return void response.writeHead(307, { location: '/kept' }).end();
    if (request.path === '/kept') return void response.writeHead(303, { location: '/seen' }).end();
    hops += 1;
    response.writeHead(204).end();
  };
  await withReceiver(answer, async ({ port, received }) => {
    const sender = new FetchWebhookSender({ allowlist: LOOPBACK });
    await sender.send({ ...call, url: `http://127.0.0.1:${port}/start` });
    assert.equal(received.map((request) => `${request.method} ${request.path}`), ['POST /start', 'POST /kept', 'GET /seen']);
    assert.is(received[1]!.body, received[0]!.body, 'a 307 sends the same body');
    assert.is(received[2]!.body, '');
    assert.is(hops, 1);
    received.length = 0;
    const error = await sender.send({ ...call, url: `http://127.0.0.1:${port}/loop` }).catch((e: Error) => e);
    assert.instance(error, Error);
    assert.match((error as Error).message, /more than 5 redirects/);
    assert.is(received.length, 6, 'the first request and 5 redirects');
    await sender.close();
  });
});

test.run();
