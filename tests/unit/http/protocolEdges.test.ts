import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { createFetchHandler, createNodeHandler } from '../../../adapters/http/index.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { RecordingApi, RUN_ID, SequentialIds } from './fakeApi.js';
import { accessLog, rawClient, serverSockets, startHarness } from './socketHarness.js';
import { eventually } from '../../support/eventually.js';
import { CapturingLogger } from '../../support/logLines.js';

/*
 * HTTP at its edges (docs/reliability.md): repeated credentials, HEAD, Expect: 100-continue, the
 * refusals node:http makes below the app, and requests their clients abandon. Over raw sockets where an HTTP
 * library would hide what is on the wire.
 */

const TOKEN = 'edge-test-token-77';
const BEARER = `Bearer ${TOKEN}`;

/** One raw exchange: the request as written, everything received until the server closes (or `until` matches). */
async function exchange(url: string, raw: string, until?: RegExp): Promise<string> {
  const client = await rawClient(url);
  try {
    client.socket.write(raw);
    if (until) await eventually(`an answer matching ${until}`, () => until.test(client.received()), { intervalMs: 5 });
    else await Promise.race([client.closed, eventually('the server to close the connection', () => false, { timeoutMs: 5000, intervalMs: 5 })]);
    return client.received();
  } finally {
    client.socket.destroy();
  }
}

function headersOf(raw: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of raw.slice(0, raw.indexOf('\r\n\r\n')).split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return headers;
}

function bodyOf(raw: string): unknown {
  return JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
}

test('two Authorization headers (the valid one first) are refused 401, on the node transport and the fetch handler', async () => {
  const { server, api } = await startHarness({ authToken: TOKEN });
  try {
    const raw = await exchange(server.url, `GET /workflow/wf-1/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nAuthorization: Bearer wrong\r\nConnection: close\r\n\r\n`);
    assert.match(raw, /^HTTP\/1\.1 401 /);
    assert.is(headersOf(raw)['www-authenticate'], 'Bearer');
    assert.is(api.calls.length, 0);
    const same = await exchange(server.url, `GET /workflow/wf-1/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nauthorization: ${BEARER}\r\nConnection: close\r\n\r\n`);
    assert.match(same, /^HTTP\/1\.1 401 /, 'even twice the right token: one credential per request');
    const one = await exchange(server.url, `GET /workflow/wf-1/status HTTP/1.1\r\nHost: x\r\nAuthorization: ${BEARER}\r\nConnection: close\r\n\r\n`);
    assert.match(one, /^HTTP\/1\.1 200 /);
  } finally {
    await server.close(100);
  }
  const handle = createFetchHandler({ api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, authToken: TOKEN });
  const headers = new Headers([['authorization', BEARER], ['authorization', 'Bearer wrong']]);
  assert.is((await handle(new Request('http://flowgate.test/workflow/wf-1/status', { headers }))).status, 401);
});

test('HEAD is answered wherever GET is, with the same headers and no body; the public probes need no token', async () => {
  const { server, api } = await startHarness({ authToken: TOKEN });
  try {
    for (const path of ['/health', '/ready', '/openapi.json']) {
      const head = await request(`${server.url}${path}`, { method: 'HEAD' });
      assert.is(head.statusCode, 200, `HEAD ${path}`);
      assert.is(await head.body.text(), '');
      const get = await request(`${server.url}${path}`);
      const text = await get.body.text();
      assert.is(head.headers['content-type'], get.headers['content-type']);
      assert.is(head.headers['content-length'], String(Buffer.byteLength(text)), `HEAD ${path} announces GET's length`);
      assert.ok(head.headers['x-request-id']);
    }
    const unauthenticated = await request(`${server.url}/workflow/wf-1/status`, { method: 'HEAD' });
    assert.is(unauthenticated.statusCode, 401);
    await unauthenticated.body.dump();
    const status = await request(`${server.url}/workflow/wf-1/status`, { method: 'HEAD', headers: { authorization: BEARER } });
    assert.is(status.statusCode, 200);
    assert.is(await status.body.text(), '');
    assert.equal(api.lastCall('getStatus'), [{ workflowId: 'wf-1' }]);
    const notAllowed = await request(`${server.url}/health`, { method: 'DELETE', headers: { authorization: BEARER } });
    assert.is(notAllowed.statusCode, 405);
    assert.is(notAllowed.headers['allow'], 'GET, HEAD');
    await notAllowed.body.dump();
    let built = 0;
    const records = Array.from({ length: 2000 }, (_, index) => ({ index, text: 'x'.repeat(100) }));
    // Read only when the answer is built: sizing it stops long before the last record.
    Object.defineProperty(records.at(-1)!, 'text', { enumerable: true, get: () => ((built += 1), 'last') });
    api.overrides.fetchTrace = async (run) => ({ source: 'local', runId: run.runId, localPath: '/traces/big.json', data: { records } as never });
    const largeHead = await request(`${server.url}/workflow/big/runs/${RUN_ID}/trace-log`, { method: 'HEAD', headers: { authorization: BEARER } });
    assert.is(largeHead.statusCode, 200);
    assert.is(await largeHead.body.text(), '');
    assert.is(largeHead.headers['content-length'], undefined, 'a large answer is not built for HEAD, so its length is not known');
    assert.is(built, 0, 'not built');
    const postOnly = await request(`${server.url}/workflow/run`, { method: 'HEAD', headers: { authorization: BEARER } });
    assert.is(postOnly.statusCode, 405, 'HEAD only where GET is');
    assert.is(postOnly.headers['allow'], 'POST');
  } finally {
    await server.close(100);
  }
  const handle = createFetchHandler({ api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, authToken: TOKEN });
  const head = await handle(new Request('http://flowgate.test/health', { method: 'HEAD' }));
  assert.is(head.status, 200);
  assert.is(head.body, null);
  assert.is(head.headers.get('content-length'), '15');
});

test('Expect: 100-continue: a final answer known from the headers (401, 413 by length, 415) is sent instead of 100 Continue', async () => {
  const { server, api } = await startHarness({ authToken: TOKEN, maxBodyBytes: 1000 });
  const post = (headers: string) => `POST /workflow HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n${headers}\r\n`;
  try {
    const noToken = await exchange(server.url, post('Content-Type: application/json\r\nContent-Length: 50\r\n'), /\r\n\r\n\{.*\}/);
    assert.match(noToken, /^HTTP\/1\.1 401 /);
    const tooLong = await exchange(server.url, post(`Authorization: ${BEARER}\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n`), /\r\n\r\n\{.*\}/);
    assert.match(tooLong, /^HTTP\/1\.1 413 /);
    assert.is((bodyOf(tooLong) as { error: string }).error, 'PayloadTooLargeError');
    const notJson = await exchange(server.url, post(`Authorization: ${BEARER}\r\nContent-Type: text/plain\r\nContent-Length: 50\r\n`), /\r\n\r\n\{.*\}/);
    assert.match(notJson, /^HTTP\/1\.1 415 /);
    assert.is(api.calls.length, 0);

    const body = JSON.stringify({ workflowName: 'echo', input: { message: 'hi' } });
    const client = await rawClient(server.url);
    try {
      client.socket.write(post(`Authorization: ${BEARER}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`));
      await eventually('an interim answer', () => client.received().length > 0, { intervalMs: 5 });
      assert.is(client.received(), 'HTTP/1.1 100 Continue\r\n\r\n');
      client.socket.write(body);
      await eventually('the final answer', () => /HTTP\/1\.1 200 OK[\s\S]*\r\n\r\n\{/.test(client.received()), { intervalMs: 5 });
      assert.is(api.calls.length, 1);
    } finally {
      client.socket.destroy();
    }
  } finally {
    await server.close(100);
  }
});

test('refusals below the app (431, 400 for bad framing, a garbled request line or no Host, 408, 417) are JSON error answers with X-Request-Id, access-logged', async () => {
  const { server, logger } = await startHarness({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
  try {
    const cases: [string, RegExp, string][] = [
      [`GET /workflow/${'x'.repeat(20_000)}/status HTTP/1.1\r\nHost: x\r\n\r\n`, /^HTTP\/1\.1 431 /, 'RequestHeaderFieldsTooLargeError'],
      [`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`, /^HTTP\/1\.1 431 /, 'RequestHeaderFieldsTooLargeError'],
      ['GET /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n', /^HTTP\/1\.1 400 /, 'BadRequestError'],
      ['NOT HTTP AT ALL\r\n\r\n', /^HTTP\/1\.1 400 /, 'BadRequestError'],
      ['GET /health HTTP/1.1\r\n\r\n', /^HTTP\/1\.1 400 /, 'BadRequestError'],
      ['GET /health HTTP/1.1\r\nHost: a\r\nhost: b\r\n\r\n', /^HTTP\/1\.1 400 /, 'BadRequestError'],
      ['GET /he alth HTTP/1.1\r\nHost: x\r\n\r\n', /^HTTP\/1\.1 400 /, 'BadRequestError'],
      ['GET /health HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 408 /, 'RequestTimeoutError'],
      ['POST /workflow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":', /^HTTP\/1\.1 408 /, 'RequestTimeoutError'],
      ['GET /health HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n', /^HTTP\/1\.1 417 /, 'ExpectationFailedError'],
    ];
    for (const [raw, status, name] of cases) {
      const answer = await exchange(server.url, raw);
      assert.match(answer, status, `${name}: ${answer.slice(0, 200)}`);
      const headers = headersOf(answer);
      assert.match(headers['content-type'] ?? '', /^application\/json/, name);
      assert.ok(headers['x-request-id'], `${name} has an X-Request-Id`);
      assert.is(headers['vary'], 'Accept-Encoding', `${name}: Vary, as every JSON answer of a server that compresses`);
      const body = bodyOf(answer) as { error: string; message: string };
      assert.is(body.error, name);
      assert.ok(body.message.length > 0);
      await eventually(`${name} in the access log`, () => accessLog(logger).some((line) => line.requestId === headers['x-request-id']), { intervalMs: 5 });
      const line = accessLog(logger).find((entry) => entry.requestId === headers['x-request-id'])!;
      assert.is(line.status, Number(/^HTTP\/1\.1 (\d+)/.exec(answer)![1]));
    }
  } finally {
    await server.close(100);
  }
});

test('a request its client abandons mid-body is access-logged as aborted (499), not as a 500 fault', async () => {
  const { server, api, logger } = await startHarness();
  const sockets = serverSockets(server);
  try {
    const client = await rawClient(server.url);
    const head = 'POST /workflow HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"workflowName":';
    client.socket.write(head);
    // The server parses what it reads as it reads it: once it read all of it, the request is under way.
    await eventually('the server to read the request so far', () => (sockets[0]?.bytesRead ?? 0) >= head.length, { intervalMs: 5 });
    client.socket.destroy();
    await eventually('the access-log line', () => accessLog(logger).length === 1, { intervalMs: 5 });
    assert.is(accessLog(logger)[0]!.status, 499);
    assert.is(accessLog(logger)[0]!.aborted, true);
    assert.not.ok(logger.entries.some((entry) => entry.level === 'error'), 'not logged as a server fault');
    await server.close(100);
    for (const entry of logger.entries.filter((line) => line.level === 'warn')) {
      assert.is(entry.message, 'request failed after its client went away');
      assert.is(entry.fields.status, 499, 'the warning says what the access line says');
    }
    assert.is(api.calls.length, 0);
  } finally {
    await server.close(100);
  }
});

test('node handler in a plain node:http server: the same refusals and Expect handling once its hooks are attached', async () => {
  const handler = createNodeHandler({ api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, authToken: TOKEN });
  const server: Server = createServer(handler);
  handler.attachTo(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const tooLarge = await exchange(url, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`);
    assert.match(tooLarge, /^HTTP\/1\.1 431 /);
    assert.is((bodyOf(tooLarge) as { error: string }).error, 'RequestHeaderFieldsTooLargeError');
    const noHost = await exchange(url, 'GET /health HTTP/1.1\r\n\r\n');
    assert.match(noHost, /^HTTP\/1\.1 400 /);
    assert.ok(headersOf(noHost)['x-request-id'], 'a request without Host gets an X-Request-Id');
    assert.match((bodyOf(noHost) as { message: string }).message, /Host header/);
    const oldProtocol = await exchange(url, 'GET /health HTTP/1.0\r\n\r\n');
    assert.match(oldProtocol, /^HTTP\/1\.1 200 /, 'HTTP/1.0 needs no Host');
    const noToken = await exchange(url, 'POST /workflow HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n', /\r\n\r\n\{.*\}/);
    assert.match(noToken, /^HTTP\/1\.1 401 /);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
