import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AsyncLocalStorage } from 'node:async_hooks';
import { channel } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, Client, fetch as undiciFetch, request, upgrade } from 'undici';
import { observeHttpRequests, type HttpRequestEvent } from '../../../adapters/hooks/httpRequestEvents.js';
import { eventually } from '../../support/eventually.js';

interface Scope {
  id: string;
}

const EVENT_KEYS = ['durationMs', 'method', 'outcome', 'requestId', 'status', 'url'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const als = new AsyncLocalStorage<Scope>();
let server: Server | undefined;
const sockets = new Set<Socket>();
let base = '';
let closedPortBase = '';
/** The path of every request the server received, in order: what a test waits for instead of sleeping. */
const arrivals: string[] = [];
const arrived = (path: string): number => arrivals.filter((arrival) => arrival === path).length;
/** A fake clock the `/tick` route moves forward between the request's creation and its response. */
let clock = 1_000;

test.before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://local');
    arrivals.push(url.pathname);
    const status = /^\/status\/(\d{3})$/.exec(url.pathname);
    if (status) {
      res.statusCode = Number(status[1]);
      res.end('body');
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { location: '/status/200?hop=2' });
      res.end();
    } else if (url.pathname === '/destroy') {
      req.socket.destroy();
    } else if (url.pathname === '/partial') {
      res.writeHead(200, { 'content-length': '1000' });
      res.write('only part of the body');
      setTimeout(() => req.socket.destroy(), 20);
    } else if (url.pathname === '/hints') {
      res.writeEarlyHints({ link: '</style.css>; rel=preload; as=style' });
      setTimeout(() => res.end('after hints'), 10);
    } else if (url.pathname === '/slow') {
      setTimeout(() => res.end('slow'), Number(url.searchParams.get('ms') ?? '0'));
    } else if (url.pathname === '/tick') {
      clock += 250;
      res.end('tick');
    } else if (url.pathname === '/hang') {
      // Never answers: the client aborts.
    } else {
      res.statusCode = 418;
      res.end();
    }
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('upgrade', (_req, socket: Socket) => {
    socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: test\r\nConnection: Upgrade\r\n\r\n');
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // A port that was just free and is closed again: connecting to it is refused. (Not port 1: fetch refuses that
  // "bad port" before it ever reaches undici's connection layer.)
  const probe = createNetServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedPortBase = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((resolve) => probe.close(resolve));
});

test.after(async () => {
  if (!server) return;
  for (const socket of sockets) socket.destroy();
  server.closeAllConnections();
  await new Promise((resolve) => server!.close(resolve));
});

interface Observed {
  seen: { event: HttpRequestEvent; context: Scope }[];
  listenerErrors: unknown[];
  stop: () => void;
}

function observe(options: Partial<Parameters<typeof observeHttpRequests<Scope>>[0]> = {}): Observed {
  const seen: Observed['seen'] = [];
  const listenerErrors: unknown[] = [];
  const stop = observeHttpRequests<Scope>({
    currentContext: () => als.getStore(),
    onRequest: (event, context) => seen.push({ event, context }),
    onListenerError: (error) => listenerErrors.push(error),
    ...options,
  });
  return { seen, listenerErrors, stop };
}

async function withObserver(run: (observed: Observed) => Promise<void>, options: Parameters<typeof observe>[0] = {}): Promise<void> {
  const observed = observe(options);
  try {
    await run(observed);
  } finally {
    observed.stop();
  }
}

/** `status` when a response arrived, `error` otherwise; the body is always consumed. */
type Result = { status: number } | { error: unknown };

interface HttpClient {
  name: string;
  send(url: string, init?: { method?: string; signal?: AbortSignal }): Promise<number>;
}

async function viaFetch(fetchImpl: typeof undiciFetch, url: string, init: { method?: string; signal?: AbortSignal } = {}): Promise<number> {
  const response = await fetchImpl(url, { redirect: 'manual', ...init });
  await response.arrayBuffer();
  return response.status;
}

const clients: HttpClient[] = [
  { name: 'global fetch', send: (url, init) => viaFetch(fetch as unknown as typeof undiciFetch, url, init) },
  { name: 'undici fetch', send: (url, init) => viaFetch(undiciFetch, url, init) },
  {
    name: 'undici request',
    send: async (url, init = {}) => {
      const response = await request(url, { method: (init.method ?? 'GET') as 'GET', ...(init.signal ? { signal: init.signal } : {}) });
      await response.body.arrayBuffer();
      return response.statusCode;
    },
  },
];

async function settle(call: Promise<number>): Promise<Result> {
  try {
    return { status: await call };
  } catch (error) {
    return { error };
  }
}

function inScope<T>(id: string, run: () => Promise<T>): { scope: Scope; result: Promise<T> } {
  const scope = { id };
  return { scope, result: als.run(scope, run) };
}

function assertEvent(event: HttpRequestEvent, expected: { method: string; url: string; status: number | undefined; outcome: HttpRequestEvent['outcome'] }): void {
  assert.equal(Object.keys(event).sort(), EVENT_KEYS);
  assert.is(event.method, expected.method);
  assert.is(event.url, expected.url);
  assert.is(event.status, expected.status);
  assert.is(event.outcome, expected.outcome);
  assert.ok(UUID.test(event.requestId), event.requestId);
  assert.type(event.durationMs, 'number');
  assert.ok(Number.isFinite(event.durationMs) && event.durationMs >= 0, String(event.durationMs));
}

// First in the file, so that no earlier test of this file has subscribed (a leaked subscription would hide another).
test('stopping removes the subscription from all three channels, and each observer only its own', () => {
  const channels = ['undici:request:create', 'undici:request:headers', 'undici:request:error'].map((name) => channel(name));
  const subscribed = () => channels.map((ch) => ch.hasSubscribers);
  const initially = subscribed();
  assert.equal(initially, [false, false, false], 'nothing else listens to undici in this process');
  const first = observe();
  const second = observe();
  assert.equal(subscribed(), [true, true, true]);
  first.stop();
  assert.equal(subscribed(), [true, true, true], 'the second observer still listens');
  second.stop();
  assert.equal(subscribed(), [false, false, false]);
  second.stop();
  assert.equal(subscribed(), [false, false, false]);
});

for (const client of clients) {
  test(`${client.name}: 200, 302, 404 and 500 each give one event with the status and outcome, in the caller's context`, async () => {
    await withObserver(async ({ seen, listenerErrors }) => {
      const cases = [
        { path: '/status/200', status: 200, outcome: 'success' },
        { path: '/redirect', status: 302, outcome: 'success' },
        { path: '/status/404', status: 404, outcome: 'failure' },
        { path: '/status/500', status: 500, outcome: 'failure' },
      ] as const;
      for (const expected of cases) {
        const before = seen.length;
        const { scope, result } = inScope(expected.path, () => client.send(`${base}${expected.path}`));
        assert.equal(await settle(result), { status: expected.status });
        assert.is(seen.length, before + 1, `one event for ${expected.path}`);
        const { event, context } = seen[before]!;
        assert.is(context, scope);
        assertEvent(event, { method: 'GET', url: `${base}${expected.path}`, status: expected.status, outcome: expected.outcome });
      }
      assert.is(new Set(seen.map(({ event }) => event.requestId)).size, cases.length);
      assert.equal(listenerErrors, []);
    });
  });

  test(`${client.name}: a socket destroyed before any response is an error without status`, async () => {
    await withObserver(async ({ seen }) => {
      const { scope, result } = inScope('destroy', () => client.send(`${base}/destroy`));
      const settled = await settle(result);
      assert.ok('error' in settled, 'the call fails');
      assert.is(seen.length, 1);
      assert.is(seen[0]!.context, scope);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${base}/destroy`, status: undefined, outcome: 'error' });
    });
  });

  test(`${client.name}: a socket destroyed mid-body: one event, for the headers that arrived`, async () => {
    await withObserver(async ({ seen, listenerErrors }) => {
      const { scope, result } = inScope('partial', () => client.send(`${base}/partial`));
      const settled = await settle(result);
      assert.ok('error' in settled, 'reading the body fails');
      await eventually('the event', () => seen.length > 0, { intervalMs: 5 });
      // Proves that no second event (for the body's failure) follows: a short wait for what must not come.
      await sleep(20);
      assert.is(seen.length, 1);
      assert.is(seen[0]!.context, scope);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${base}/partial`, status: 200, outcome: 'success' });
      assert.equal(listenerErrors, []);
    });
  });

  test(`${client.name}: a refused connection is an error without status`, async () => {
    await withObserver(async ({ seen }) => {
      const { scope, result } = inScope('refused', () => client.send(`${closedPortBase}/nothing?token=t`));
      const settled = await settle(result);
      assert.ok('error' in settled, 'the call fails');
      const cause = (settled as { error: { cause?: { code?: string }; code?: string } }).error;
      assert.is(cause.cause?.code ?? cause.code, 'ECONNREFUSED');
      assert.is(seen.length, 1);
      assert.is(seen[0]!.context, scope);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${closedPortBase}/nothing?token=REDACTED`, status: undefined, outcome: 'error' });
    });
  });

  test(`${client.name}: an abort before the response is one error event`, async () => {
    await withObserver(async ({ seen }) => {
      const controller = new AbortController();
      const hangsBefore = arrived('/hang');
      const { scope, result } = inScope('abort', () => client.send(`${base}/hang`, { signal: controller.signal }));
      await eventually('the server to receive the request', () => arrived('/hang') > hangsBefore, { intervalMs: 5 });
      assert.is(seen.length, 0, 'nothing while the request is pending');
      controller.abort();
      assert.ok('error' in (await settle(result)));
      await eventually('the error event', () => seen.length > 0, { intervalMs: 5 });
      assert.is(seen.length, 1);
      assert.is(seen[0]!.context, scope);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${base}/hang`, status: undefined, outcome: 'error' });
    });
  });

  test(`${client.name}: 103 Early Hints is not the final status: one event with 200`, async () => {
    await withObserver(async ({ seen }) => {
      const { result } = inScope('hints', () => client.send(`${base}/hints`));
      assert.equal(await settle(result), { status: 200 });
      assert.is(seen.length, 1);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${base}/hints`, status: 200, outcome: 'success' });
    });
  });

  test(`${client.name}: method and redacted url`, async () => {
    await withObserver(async ({ seen }) => {
      const { result } = inScope('post', () => client.send(`${base}/status/201?page=2&api_key=k3y&X-Amz-Signature=abc&q=x%20y`, { method: 'POST' }));
      assert.equal(await settle(result), { status: 201 });
      assert.is(seen.length, 1);
      assertEvent(seen[0]!.event, {
        method: 'POST',
        url: `${base}/status/201?page=2&api_key=REDACTED&X-Amz-Signature=REDACTED&q=x%20y`,
        status: 201,
        outcome: 'success',
      });
    });
  });

  test(`${client.name}: no event for a request made outside any context`, async () => {
    await withObserver(async ({ seen, listenerErrors }) => {
      assert.equal(await settle(client.send(`${base}/status/200`)), { status: 200 });
      assert.ok('error' in (await settle(client.send(`${closedPortBase}/`))));
      assert.is(seen.length, 0);
      assert.equal(listenerErrors, []);
    });
  });

  test(`${client.name}: two concurrent calls under two stores each get their own context`, async () => {
    await withObserver(async ({ seen }) => {
      // The first call answers last, so contexts cannot be matched by order.
      const a = inScope('a', () => client.send(`${base}/slow?ms=60&caller=a`));
      const b = inScope('b', () => client.send(`${base}/slow?ms=5&caller=b`));
      assert.equal(await Promise.all([settle(a.result), settle(b.result)]), [{ status: 200 }, { status: 200 }]);
      assert.is(seen.length, 2);
      assert.equal(
        seen.map(({ event }) => new URL(event.url).searchParams.get('caller')),
        ['b', 'a'],
        'b answered first',
      );
      for (const { event, context } of seen) {
        assert.is(context, new URL(event.url).searchParams.get('caller') === 'a' ? a.scope : b.scope);
      }
      assert.ok(seen[1]!.event.durationMs >= 40, `a waited ~60ms, got ${seen[1]!.event.durationMs}`);
    });
  });

  test(`${client.name}: durationMs runs from request creation to the response headers (injected clock)`, async () => {
    await withObserver(
      async ({ seen }) => {
        const { result } = inScope('tick', () => client.send(`${base}/tick`));
        assert.equal(await settle(result), { status: 200 });
        assert.is(seen.length, 1);
        assert.is(seen[0]!.event.durationMs, 250);
      },
      { now: () => clock },
    );
  });

  test(`${client.name}: a throwing onRequest reaches onListenerError and the call still succeeds`, async () => {
    const boom = new Error('listener failed');
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on('uncaughtException', onUncaught);
    const listenerErrors: unknown[] = [];
    const stops = [
      observeHttpRequests<Scope>({
        currentContext: () => als.getStore(),
        onRequest: () => {
          throw boom;
        },
        onListenerError: (error) => listenerErrors.push(error),
      }),
      // Neither onListenerError ...
      observeHttpRequests<Scope>({
        currentContext: () => als.getStore(),
        onRequest: () => {
          throw boom;
        },
      }),
      // ... nor a throwing onListenerError, nor a throwing currentContext, reaches the HTTP call.
      observeHttpRequests<Scope>({
        currentContext: () => {
          throw boom;
        },
        onRequest: () => {},
        onListenerError: () => {
          throw new Error('reporter failed too');
        },
      }),
    ];
    try {
      const { result } = inScope('throwing', () => client.send(`${base}/status/200`));
      assert.equal(await settle(result), { status: 200 });
      const { result: failing } = inScope('throwing', () => client.send(`${base}/destroy`));
      assert.ok('error' in (await settle(failing)));
      await eventually('both listener errors', () => listenerErrors.length >= 2, { intervalMs: 5 });
      assert.equal(listenerErrors, [boom, boom]);
      assert.equal(uncaught, []);
    } finally {
      for (const stop of stops) stop();
      process.off('uncaughtException', onUncaught);
    }
  });

  test(`${client.name}: unsubscribing stops events, also for a request already in flight`, async () => {
    const observed = observe();
    try {
      const slowBefore = arrived('/slow');
      const inFlight = inScope('in flight', () => client.send(`${base}/slow?ms=40`));
      await eventually('the request to reach the server', () => arrived('/slow') > slowBefore, { intervalMs: 5 });
      observed.stop();
      observed.stop();
      assert.equal(await settle(inFlight.result), { status: 200 });
      const after = inScope('after', () => client.send(`${base}/status/200`));
      assert.equal(await settle(after.result), { status: 200 });
      assert.is(observed.seen.length, 0);
    } finally {
      observed.stop();
    }
  });
}

for (const client of clients.filter(({ name }) => name.includes('fetch'))) {
  test(`${client.name}: a followed redirect gives one event per hop, both in the caller's context`, async () => {
    await withObserver(async ({ seen }) => {
      const scope = { id: 'follow' };
      const fetchImpl = client.name === 'global fetch' ? (fetch as unknown as typeof undiciFetch) : undiciFetch;
      const response = await als.run(scope, () => fetchImpl(`${base}/redirect?token=t`));
      await response.arrayBuffer();
      assert.is(response.status, 200);
      assert.is(seen.length, 2);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${base}/redirect?token=REDACTED`, status: 302, outcome: 'success' });
      assertEvent(seen[1]!.event, { method: 'GET', url: `${base}/status/200?hop=2`, status: 200, outcome: 'success' });
      assert.ok(seen.every(({ context }) => context === scope));
      assert.is.not(seen[0]!.event.requestId, seen[1]!.event.requestId);
    });
  });
}

test('several observers at once are independent: each gets its own event and its own context; stopping one leaves the other', async () => {
  const other = new AsyncLocalStorage<Scope>();
  const first = observe();
  const secondSeen: { event: HttpRequestEvent; context: Scope }[] = [];
  const stopSecond = observeHttpRequests<Scope>({ currentContext: () => other.getStore(), onRequest: (event, context) => secondSeen.push({ event, context }) });
  try {
    const outer = { id: 'first' };
    const inner = { id: 'second' };
    const status = await als.run(outer, () => other.run(inner, () => clients[0]!.send(`${base}/status/200`)));
    assert.is(status, 200);
    assert.is(first.seen.length, 1);
    assert.is(secondSeen.length, 1);
    assert.is(first.seen[0]!.context, outer);
    assert.is(secondSeen[0]!.context, inner);
    assert.is.not(first.seen[0]!.event.requestId, secondSeen[0]!.event.requestId);

    first.stop();
    await als.run(outer, () => other.run(inner, () => clients[2]!.send(`${base}/status/404`)));
    assert.is(first.seen.length, 1, 'the stopped observer sees nothing more');
    assert.is(secondSeen.length, 2);
    assert.is(secondSeen[1]!.event.status, 404);
  } finally {
    first.stop();
    stopSecond();
  }
});

test('undici request: a lower-case method is reported in upper case', async () => {
  await withObserver(async ({ seen }) => {
    // undici sends the method as written; Node's HTTP parser answers 400 to a lower-case method.
    const { result } = inScope('lower', () => clients[2]!.send(`${base}/status/200`, { method: 'delete' }));
    assert.equal(await settle(result), { status: 400 });
    assert.is(seen.length, 1);
    assertEvent(seen[0]!.event, { method: 'DELETE', url: `${base}/status/200`, status: 400, outcome: 'failure' });
  });
});

test('undici upgrade: a final 101 is a failure status (not a 2xx-3xx)', async () => {
  // The package's own dispatcher: on Node 22 and later the global one is the undici bundled in Node (6.x), whose
  // upgrade path publishes no headers message, so an upgrade made through it reports no event at all.
  const agent = new Agent();
  try {
    await withObserver(async ({ seen }) => {
      const { result } = inScope('upgrade', async () => {
        const { socket, headers } = await upgrade(`${base}/ws`, { protocol: 'test', dispatcher: agent });
        socket.destroy();
        return headers.upgrade;
      });
      assert.is(await result, 'test');
      assert.is(seen.length, 1);
      assertEvent(seen[0]!.event, { method: 'GET', url: `${base}/ws`, status: 101, outcome: 'failure' });
    });
  } finally {
    await agent.close();
  }
});

test('undici Client with an absolute-form path (as sent to an HTTP proxy): the url is that path', async () => {
  const client = new Client(base);
  try {
    await withObserver(async ({ seen }) => {
      const { result } = inScope('absolute', async () => {
        const response = await client.request({ method: 'GET', path: 'http://upstream.example/status/204?sig=s&n=1' });
        await response.body.dump();
        return response.statusCode;
      });
      assert.equal(await settle(result), { status: 204 });
      assert.is(seen.length, 1);
      assertEvent(seen[0]!.event, { method: 'GET', url: 'http://upstream.example/status/204?sig=REDACTED&n=1', status: 204, outcome: 'success' });
    });
  } finally {
    await client.close();
  }
});

test.run();
