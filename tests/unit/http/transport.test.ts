import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { Readable } from 'node:stream';
import express from 'express';
import { Client, request } from 'undici';
import {
  createFetchHandler,
  createNodeHandler,
  startHttpServer,
} from '../../../adapters/http/index.js';
import { RecordingApi, SequentialIds, resultV2 } from './fakeApi.js';
import { followForever, startHarness } from './socketHarness.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { eventually } from '../../support/eventually.js';
import { CapturingLogger } from '../../support/logLines.js';

/*
 * Transport behaviour over real sockets (node:http through startHttpServer, Express 5, WHATWG fetch): what only
 * shows with a socket in between. The FlowgateApi is a recording double; what endpoints answer for real is the
 * contract suite's job.
 */

/** Reads a streamed body until `text` has arrived (or fails after the timeout). */
async function readUntil(body: AsyncIterable<Buffer | Uint8Array | string>, text: string, timeoutMs = 2000): Promise<string> {
  let received = '';
  const decoder = new TextDecoder();
  const deadline = setTimeout(() => undefined, timeoutMs);
  try {
    for await (const chunk of body) {
      received += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      if (received.includes(text)) return received;
    }
  } finally {
    clearTimeout(deadline);
  }
  throw new Error(`stream ended before ${JSON.stringify(text)}; got ${JSON.stringify(received)}`);
}

test('over a socket: X-Request-Id echoed or generated, an encoded "/" stays inside the id, sensible server timeouts', async () => {
  const { server, api } = await startHarness();
  try {
    const echoed = await request(`${server.url}/health`, { headers: { 'x-request-id': 'trace-1.a:b_c' } });
    assert.is(echoed.statusCode, 200);
    assert.is(echoed.headers['x-request-id'], 'trace-1.a:b_c');
    assert.equal(await echoed.body.json(), { status: 'ok' });

    const replaced = await request(`${server.url}/health`, { headers: { 'x-request-id': 'has spaces' } });
    await replaced.body.dump();
    assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);

    const status = await request(`${server.url}/workflow/orders%2F2024%3Fx/status`);
    assert.is(status.statusCode, 200);
    await status.body.dump();
    assert.equal(api.lastCall('getStatus'), [{ workflowId: 'orders/2024?x' }]);

    // Slow-loris protection without limiting how long an answer (a run-and-wait, an SSE stream) may take.
    assert.ok(server.server.headersTimeout > 0 && server.server.headersTimeout <= server.server.requestTimeout);
    assert.ok(server.server.requestTimeout > 0);
  } finally {
    await server.close(100);
  }
});

test('a result of several MiB goes out in chunks as it is read, multi-byte characters intact across chunks', async () => {
  const { server, api } = await startHarness();
  try {
    // Odd lengths put 4-byte characters (surrogate pairs) across chunk boundaries somewhere.
    const text = `${'a'.repeat(1024 * 1024 - 1)}${'😀é'.repeat(700_001)}z`;
    api.overrides.getResult = async (run) => ({ ...resultV2(run.workflowId), output: { text } });
    const response = await request(`${server.url}/workflow/big/result`);
    assert.is(response.statusCode, 200);
    const raw = Buffer.from(await response.body.arrayBuffer());
    assert.is(response.headers['content-length'], undefined, 'built as it goes out, so its length is not known ahead');
    assert.is(response.headers['transfer-encoding'], 'chunked');
    assert.is(raw.toString('utf8').includes('\uFFFD'), false);
    const body = JSON.parse(raw.toString('utf8')) as { output: { text: string } };
    assert.ok(body.output.text === text, 'the text arrived unchanged');
  } finally {
    await server.close(100);
  }
});

test('413 comes before the body is read to the end, for a declared length and for a chunked upload', async () => {
  const { server, api } = await startHarness({ maxBodyBytes: 1024 });
  try {
    const declared = await request(`${server.url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: Buffer.alloc(8 * 1024 * 1024, 'a'),
    });
    assert.is(declared.statusCode, 413);
    assert.is(declared.headers['connection'], 'close');
    assert.is(((await declared.body.json()) as { error: string }).error, 'PayloadTooLargeError');

    const totalChunks = 2000;
    let pulled = 0;
    async function* upload(): AsyncGenerator<Buffer> {
      for (let index = 0; index < totalChunks; index++) {
        pulled++;
        yield Buffer.alloc(64 * 1024, 'a');
      }
    }
    const chunked = await request(`${server.url}/workflow/run`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Readable.from(upload()) });
    assert.is(chunked.statusCode, 413);
    assert.is(((await chunked.body.json()) as { error: string }).error, 'PayloadTooLargeError');
    // Socket buffers hold a few MiB; reading the 128 MiB upload to the end would pull every chunk.
    assert.ok(pulled < totalChunks / 4, `server kept reading: ${pulled} of ${totalChunks} chunks pulled`);
    assert.is(api.calls.length, 0);
  } finally {
    await server.close(100);
  }
});

test('with a token: a deprecated path keeps its deprecation headers on 401 and 405; a garbled path is 401 before 400', async () => {
  const { server } = await startHarness({ authToken: 'sekret-token' });
  const bearer = { authorization: 'Bearer sekret-token' };
  try {
    const unauthorized = await request(`${server.url}/workflow/wf-1/stop`, { method: 'PATCH' });
    assert.is(unauthorized.statusCode, 401);
    assert.is(unauthorized.headers['www-authenticate'], 'Bearer');
    assert.match(String(unauthorized.headers['deprecation']), /^@\d+$/);
    assert.is(unauthorized.headers['sunset'], 'Thu, 16 Jul 2026 23:59:59 GMT');
    assert.is(unauthorized.headers['link'], '</workflow/{id}/runs/{rid}/stop>; rel="successor-version"');
    await unauthorized.body.dump();

    const wrongMethod = await request(`${server.url}/workflow/wf-1/reset`, { method: 'GET', headers: bearer });
    assert.is(wrongMethod.statusCode, 405);
    assert.is(wrongMethod.headers['allow'], 'POST');
    assert.match(String(wrongMethod.headers['deprecation']), /^@\d+$/);
    assert.is(wrongMethod.headers['link'], '</workflow/{id}/runs/{rid}/reset>; rel="successor-version"');
    await wrongMethod.body.dump();

    const garbledAnonymous = await request(`${server.url}/workflow/%E0%A4%A/status`);
    assert.is(garbledAnonymous.statusCode, 401);
    await garbledAnonymous.body.dump();
    const garbled = await request(`${server.url}/workflow/%E0%A4%A/status`, { headers: bearer });
    assert.is(garbled.statusCode, 400);
    assert.is(((await garbled.body.json()) as { error: string }).error, 'ValidationError');
  } finally {
    await server.close(100);
  }
});

test('SSE over a socket: framing, keep-alive comments, Last-Event-ID, and the stream is aborted when the client leaves', async () => {
  const { server, api } = await startHarness({ sseHeartbeatMs: 20 });
  followForever(api);
  try {
    const response = await request(`${server.url}/workflow/wf-sse/history`, {
      headers: { accept: 'text/event-stream', 'last-event-id': '7' },
    });
    assert.is(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/event-stream/);
    assert.match(String(response.headers['cache-control']), /no-cache/);
    assert.ok(response.headers['x-request-id']);
    const received = await readUntil(response.body, ': keep-alive\n\n');
    assert.ok(received.startsWith('event: workflow\ndata: {"workflowId":"wf-sse",'), received);
    assert.is(api.lastStreamRequest?.lastEventId, 7);
    assert.not.ok(api.lastStreamRequest?.signal.aborted);

    response.body.destroy();
    await eventually('the history stream to be aborted', () => api.lastStreamRequest?.signal.aborted === true, { intervalMs: 5 });
  } finally {
    await server.close(100);
  }
});

test('graceful shutdown: SSE streams end at once, in-flight requests finish, idle connections close, close() twice is one close', async () => {
  const { server, api } = await startHarness({ sseHeartbeatMs: 60_000 });
  followForever(api);
  api.overrides.runAndWait = async (runRequest) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    return { answer: resultV2(runRequest.workflowId ?? 'slow') };
  };
  const idleClient = new Client(server.url);
  try {
    const idle = await idleClient.request({ method: 'GET', path: '/health' });
    await idle.body.dump();
    const idleDisconnected = new Promise<void>((resolve) => idleClient.once('disconnect', () => resolve()));

    const stream = await request(`${server.url}/workflow/wf-live/history`, { headers: { accept: 'text/event-stream' } });
    const streamText = readUntil(stream.body, 'never arrives', 5000).catch((error: Error) => error.message);
    const inFlight = request(`${server.url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'slow', workflowId: 'slow-1', input: {} }),
    });
    await eventually('the run to start', () => api.calls.some((call) => call.method === 'runAndWait'), { intervalMs: 5 });

    const startedClosing = Date.now();
    const first = server.close(5000);
    const second = server.close(5000);
    assert.is(first, second);

    assert.match(await streamText, /stream ended before/, 'the SSE response ended');
    assert.ok(api.lastStreamRequest?.signal.aborted, 'the history stream was told to stop');
    await idleDisconnected;

    const answer = await inFlight;
    assert.is(answer.statusCode, 200);
    assert.is(answer.headers['connection'], 'close');
    assert.is(((await answer.body.json()) as { workflowId: string }).workflowId, 'slow-1');

    await first;
    assert.ok(Date.now() - startedClosing < 2500, 'closed without waiting out the grace period');
    await request(`${server.url}/health`).then(
      () => assert.unreachable('still accepting connections'),
      () => undefined,
    );
  } finally {
    await idleClient.close().catch(() => undefined);
    await server.close(100);
  }
});

test('graceful shutdown: what is still running after the grace period is cut off', async () => {
  const { server, api } = await startHarness();
  api.overrides.runAndWait = () => new Promise(() => undefined);
  const hanging = request(`${server.url}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'forever', input: {} }),
  }).then(
    (response) => `answered ${response.statusCode}`,
    (error: Error) => `failed: ${error.message}`,
  );
  await eventually('the run to start', () => api.calls.some((call) => call.method === 'runAndWait'), { intervalMs: 5 });
  const startedClosing = Date.now();
  await server.close(150);
  const elapsed = Date.now() - startedClosing;
  assert.ok(elapsed >= 100 && elapsed < 2000, `closed after ${elapsed} ms`);
  assert.match(await hanging, /^failed: /);
});

test('fetch handler: string answers, and cancelling an SSE body aborts the history stream', async () => {
  const api = new RecordingApi();
  followForever(api);
  const handle = createFetchHandler({ api, logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, sseHeartbeatMs: 20, maxBodyBytes: 64 });

  const tooLarge = await handle(
    new Request('http://flowgate.test/workflow', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ input: 'x'.repeat(100) }) }),
  );
  assert.is(tooLarge.status, 413);
  assert.ok(tooLarge.headers.get('x-request-id'));
  assert.is(((await tooLarge.json()) as { error: string }).error, 'PayloadTooLargeError');

  const stream = await handle(new Request('http://flowgate.test/workflow/a%2Fb/history', { headers: { accept: 'text/event-stream' } }));
  assert.is(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /^text\/event-stream/);
  const reader = stream.body!.getReader();
  const first = await reader.read();
  assert.match(new TextDecoder().decode(first.value), /^event: workflow\ndata: \{"workflowId":"a\/b",/);
  assert.equal(api.lastCall('historyStream')?.[0], { workflowId: 'a/b' });
  await reader.cancel();
  await eventually('the history stream to be aborted', () => api.lastStreamRequest?.signal.aborted === true, { intervalMs: 5 });
});

test('node handler mounted in Express 5 under a prefix: encoded ids survive, Express keeps its own routes', async () => {
  const api = new RecordingApi();
  const app = express();
  app.get('/own', (_req, res) => {
    res.json({ servedBy: 'express' });
  });
  app.use('/api', createNodeHandler({ api, logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const status = await request(`${url}/api/workflow/a%2Fb/runs/0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f/status`);
    assert.is(status.statusCode, 200);
    await status.body.dump();
    assert.equal(api.lastCall('getStatus'), [{ workflowId: 'a/b', runId: '0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f' }]);

    const missing = await request(`${url}/api/nowhere`);
    assert.is(missing.statusCode, 404);
    assert.is(((await missing.body.json()) as { error: string }).error, 'NotFoundError');

    const own = await request(`${url}/own`);
    assert.equal(await own.body.json(), { servedBy: 'express' });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
