import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { connect, type Socket } from 'node:net';
import { Client, request } from 'undici';
import { startHttpServer } from '../../../adapters/http/index.js';
import { createHttpApp } from '../../../adapters/http/app.js';
import { queryObject } from '../../../adapters/http/requestTarget.js';
import { RecordingApi, SequentialIds } from './fakeApi.js';
import { followForever, startHarness } from './socketHarness.js';
import { HTTP_APP_DEFAULTS, HTTP_SERVER_DEFAULTS } from '../../support/httpDefaults.js';
import { eventually } from '../../support/eventually.js';
import { CapturingLogger } from '../../support/logLines.js';

/*
 * The limits that keep slow, greedy or hostile clients from holding the server (issue 8, docs/reliability.md),
 * over real sockets.
 */

/** A raw socket, for clients no HTTP library would be: slow, silent, half-finished. */
async function rawSocket(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

test('a client that never finishes its headers is answered 408 and cut off after headersTimeoutMs', async () => {
  const { server } = await startHarness({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
  try {
    const slow = await rawSocket(server.url);
    const startedAt = Date.now();
    slow.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    // Dribble a header line slower than the timeout allows.
    const dribble = setInterval(() => slow.socket.writable && slow.socket.write('X-Slow: 1\r\n'), 100);
    // A failing wait must not leave the interval running: it would keep this suite's process alive.
    await within(slow.closed, 3000, 'closing a slow-header connection').finally(() => clearInterval(dribble));
    assert.ok(Date.now() - startedAt < 2000, `closed after ${Date.now() - startedAt} ms`);
    assert.match(slow.received(), /^HTTP\/1\.1 408/);
  } finally {
    await server.close(100);
  }
});

test('a body trickled slower than requestTimeoutMs allows is answered 408; nothing reaches the API', async () => {
  const { server, api } = await startHarness({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
  try {
    const slow = await rawSocket(server.url);
    slow.socket.write('POST /workflow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"workflowName":');
    const dribble = setInterval(() => slow.socket.writable && slow.socket.write(' '), 100);
    await within(slow.closed, 3000, 'closing a slow-body connection').finally(() => clearInterval(dribble));
    assert.match(slow.received(), /^HTTP\/1\.1 408/);
    assert.is(api.calls.length, 0);
  } finally {
    await server.close(100);
  }
});

test('beyond maxConnections: 503 ServerBusyError with Retry-After and Connection: close; probes still answered; room again once one leaves', async () => {
  const { server, api } = await startHarness({ maxConnections: 2 });
  const first = new Client(server.url);
  const second = new Client(server.url);
  const third = new Client(server.url);
  try {
    for (const client of [first, second]) {
      const held = await client.request({ method: 'GET', path: '/workflow/wf-1/status' });
      assert.is(held.statusCode, 200);
      await held.body.dump();
    }
    const refused = await third.request({ method: 'GET', path: '/workflow/wf-1/status' });
    assert.is(refused.statusCode, 503);
    assert.is(refused.headers['retry-after'], '1');
    assert.is(refused.headers['connection'], 'close');
    assert.ok(refused.headers['x-request-id']);
    assert.equal(await refused.body.json(), { error: 'ServerBusyError', message: 'Too many open connections; retry shortly.' });
    assert.is(api.calls.filter((call) => call.method === 'getStatus').length, 2, 'the refused request never reached the API');

    const probe = await third.request({ method: 'GET', path: '/health' });
    assert.is(probe.statusCode, 200);
    await probe.body.dump();

    await first.close();
    // The server sees the first connection close a moment later.
    const answered = await eventually('a connection slot to free', async () => {
      const retry = await third.request({ method: 'GET', path: '/workflow/wf-1/status' });
      await retry.body.dump();
      return retry.statusCode === 200 ? retry.statusCode : undefined;
    }, { intervalMs: 20 });
    assert.is(answered, 200);
  } finally {
    await Promise.all([first.close().catch(() => {}), second.close(), third.close()]);
    await server.close(100);
  }
});

test('beyond maxEventStreams: 503 ServerBusyError; a slot frees when its client leaves; JSON pages are not capped', async () => {
  const { server, api } = await startHarness({ maxEventStreams: 2 });
  followForever(api);
  const sse = { accept: 'text/event-stream' };
  const open = [] as Awaited<ReturnType<typeof request>>[];
  try {
    for (let index = 0; index < 2; index += 1) {
      const stream = await request(`${server.url}/workflow/wf-${index}/history`, { headers: sse });
      assert.is(stream.statusCode, 200);
      open.push(stream);
    }
    const refused = await request(`${server.url}/workflow/wf-2/history`, { headers: sse });
    assert.is(refused.statusCode, 503);
    assert.is(refused.headers['retry-after'], '1');
    assert.equal(((await refused.body.json()) as { error: string }).error, 'ServerBusyError');
    assert.is(api.calls.filter((call) => call.method === 'historyStream').length, 2, 'the refused stream never asked the engine');

    const page = await request(`${server.url}/workflow/wf-2/history`);
    assert.is(page.statusCode, 200);
    await page.body.dump();

    open.shift()!.body.destroy();
    const answered = await eventually('a stream slot to free', async () => {
      const retry = await request(`${server.url}/workflow/wf-3/history`, { headers: sse });
      if (retry.statusCode !== 200) return void (await retry.body.dump());
      open.push(retry);
      return retry.statusCode;
    }, { intervalMs: 20 });
    assert.is(answered, 200);
  } finally {
    for (const stream of open) stream.body.destroy();
    await server.close(100);
  }
});

test('a stream that fails before it starts (unknown run) gives its slot back', async () => {
  const { server, api } = await startHarness({ maxEventStreams: 1 });
  const { WorkflowNotFoundError } = await import('../../../core/domain/errors.js');
  api.overrides.historyStream = async (run) => {
    throw new WorkflowNotFoundError(`No workflow ${run.workflowId}.`, { workflowId: run.workflowId });
  };
  try {
    for (let index = 0; index < 3; index += 1) {
      const missing = await request(`${server.url}/workflow/nope/history`, { headers: { accept: 'text/event-stream' } });
      assert.is(missing.statusCode, 404);
      await missing.body.dump();
    }
  } finally {
    await server.close(100);
  }
});

test('a stream asked for by a client already gone is not opened; one whose signal is already aborted (shutdown) does not keep its slot', async () => {
  const api = new RecordingApi();
  followForever(api);
  const app = createHttpApp({ api, logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, maxEventStreams: 1 });
  const aborted = new AbortController();
  aborted.abort();
  const ask = (signal: AbortSignal, clientGone?: boolean) =>
    app.handle({ method: 'GET', url: '/workflow/wf-1/history', headers: { accept: 'text/event-stream' }, body: null, signal, ...(clientGone === undefined ? {} : { clientGone }) });
  assert.is((await ask(aborted.signal)).status, 499, 'nobody to answer');
  assert.is(api.calls.length, 0, 'the engine was not asked');
  // The node transport aborts a stream's signal at shutdown while its client is still there.
  for (let attempt = 0; attempt < 3; attempt += 1) assert.is((await ask(aborted.signal, false)).status, 200);
  const live = new AbortController();
  const response = await ask(live.signal);
  assert.is(response.status, 200, 'the one slot is free');
  live.abort();
});

test('a repeated __proto__ query parameter stays a parameter: no prototype is swapped', async () => {
  const query = queryObject('__proto__=a&__proto__=b&pageSize=5');
  assert.is(Object.getPrototypeOf(query), null);
  assert.equal(Object.getOwnPropertyDescriptor(query, '__proto__')?.value, ['a', 'b']);
  assert.is(query['pageSize'], '5');
  const { server, api } = await startHarness();
  try {
    // The run list takes no parameter of that name: refused as any unknown one is, by its name.
    const response = await request(`${server.url}/workflow/runs?__proto__=a&__proto__=b`);
    assert.is(response.statusCode, 400);
    const body = (await response.body.json()) as { message: string };
    assert.match(body.message, /unknown query parameter __proto__/);
    assert.is(api.calls.length, 0);
  } finally {
    await server.close(100);
  }
});

test('invalid limits are refused at start, naming the option', async () => {
  const api = new RecordingApi();
  try {
    await startHttpServer({ api, logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, ...HTTP_SERVER_DEFAULTS, maxConnections: 0 });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /maxConnections must be a positive integer/);
  }
  for (const maxPipelinedRequests of [0, 1.5]) {
    await startHttpServer({ api, logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, ...HTTP_SERVER_DEFAULTS, maxPipelinedRequests }).then(
      () => assert.unreachable(`maxPipelinedRequests ${maxPipelinedRequests} accepted`),
      (error: Error) => assert.match(error.message, /maxPipelinedRequests must be a positive integer/),
    );
  }
});

test.run();
