import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Socket } from 'node:net';
import type { TraceLogView } from '../../../core/api/views.js';
import type { RunStatusView } from '../../../core/api/views.js';
import { RUN_ID, statusView } from './fakeApi.js';
import { accessLog, rawClient, serverSockets, startHarness } from './socketHarness.js';
import { eventually } from '../../support/eventually.js';

/*
 * Greedy clients (docs/reliability.md): a client that does not read its answers, or
 * pipelines requests without reading, holds a bounded amount of the server, and an answer nobody waits for any
 * more is not built. Over real sockets; the scene with figures is tests/long/greedyClients.test.ts.
 */

const TRACE_PATH = `/workflow/big/runs/${RUN_ID}/trace-log`;

/** A trace-log answer of about `megabytes` MB of many small records, the shape of a data workflow's trace. */
function largeTrace(megabytes: number): TraceLogView {
  const records = Array.from({ length: megabytes * 1000 }, (_, index) => ({ index, text: `${index} ${'é😀 lorem ipsum '.repeat(60)}` }));
  return {
    source: 'local',
    runId: RUN_ID,
    localPath: '/traces/big.json',
    data: { workflowId: 'big', workflowName: 'large', input: {}, output: null, error: null, startedAt: '2025-01-01T00:00:00.000Z', closedAt: null, steps: [{ name: 'make', output: records }] },
  } as TraceLogView;
}

/** The body of a chunked HTTP/1.1 response, from the raw bytes (as latin1 text) of the whole exchange. */
function dechunk(raw: string): Buffer {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.slice(at, lineEnd), 16);
    if (size === 0) return Buffer.concat(parts);
    parts.push(Buffer.from(raw.slice(lineEnd + 2, lineEnd + 2 + size), 'latin1'));
    at = lineEnd + 2 + size + 2;
  }
}

/** Until the server has stopped writing to `socket` for a while: its client reads nothing, so the kernel is full. */
async function stalled(socket: Socket): Promise<void> {
  let last = -1;
  await eventually(
    'the server to stop writing to a client that does not read',
    () => {
      const written = socket.bytesWritten;
      const still = written === last && socket.writableLength > 0;
      last = written;
      return still;
    },
    { timeoutMs: 10_000, intervalMs: 5 },
  );
}

test('a client that does not read a large answer holds at most a bounded buffer in the server; it gets all of it once it reads', async () => {
  const { server, api } = await startHarness();
  const sockets = serverSockets(server);
  const trace = largeTrace(12);
  api.overrides.fetchTrace = async () => trace;
  const client = await rawClient(server.url);
  try {
    client.socket.pause();
    client.socket.write(`GET ${TRACE_PATH} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    await eventually('the answer to start', () => sockets.length === 1 && sockets[0]!.bytesWritten > 0, { intervalMs: 5 });
    const serverSide = sockets[0]!;
    // Poll slowly enough that a write in progress shows as a change.
    for (let check = 0; check < 3; check += 1) {
      await stalled(serverSide);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(serverSide.writableLength <= 128 * 1024, `${serverSide.writableLength} bytes queued in the server for a client that reads nothing`);

    client.socket.resume();
    await client.closed;
    const raw = client.received();
    assert.match(raw, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(raw, /\r\ntransfer-encoding: chunked\r\n/i);
    assert.equal(JSON.parse(dechunk(raw).toString('utf8')), trace, 'the whole answer, multi-byte characters intact across chunks');
  } finally {
    client.socket.destroy();
    await server.close(100);
  }
});

test('an answer whose client left before it was ready is not built, and the access log says aborted (499)', async () => {
  const { server, api, logger } = await startHarness();
  const sockets = serverSockets(server);
  let serialized = 0;
  let ready!: (view: TraceLogView) => void;
  api.overrides.fetchTrace = () => new Promise((resolve) => (ready = resolve));
  const client = await rawClient(server.url);
  try {
    client.socket.write(`GET ${TRACE_PATH} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await eventually('the trace to be asked for', () => api.calls.some((call) => call.method === 'fetchTrace'), { intervalMs: 5 });
    client.socket.destroy();
    await eventually('the server to see the client leave', () => sockets[0]?.destroyed === true, { intervalMs: 5 });
    const view = largeTrace(1);
    // Counts every serialisation of the answer, whole or in chunks.
    Object.assign(view.data as object, { toJSON: (): unknown => (serialized += 1) });
    ready(view);
    await eventually('the access-log line', () => accessLog(logger).length === 1, { intervalMs: 5 });
    assert.is(serialized, 0, 'the answer was not built');
    assert.is(accessLog(logger)[0]!.status, 499);
    assert.is(accessLog(logger)[0]!.aborted, true);
  } finally {
    await server.close(100);
  }
});

/** `count` pipelined status requests for wf-<first>, wf-<first+1>, ... in one write. */
function pipelined(first: number, count: number): string {
  return Array.from({ length: count }, (_, index) => `GET /workflow/wf-${first + index}/status HTTP/1.1\r\nHost: x\r\n\r\n`).join('');
}

test('pipelining: at most maxPipelinedRequests of a connection are answered at once; its next requests are not read meanwhile', async () => {
  const { server, api } = await startHarness({ maxPipelinedRequests: 3 });
  const sockets = serverSockets(server);
  const pending: (() => void)[] = [];
  api.overrides.getStatus = (run) => new Promise<RunStatusView>((resolve) => pending.push(() => resolve(statusView(run.workflowId))));
  const client = await rawClient(server.url);
  try {
    client.socket.write(pipelined(0, 20));
    await eventually('three requests to reach the API', () => pending.length >= 3, { intervalMs: 5 });
    // A pause that proves something does not happen (a fourth request handled): it can only be a fixed one.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(pending.length, 3, 'no more than three requests are handled at once');

    const readBefore = sockets[0]!.bytesRead;
    client.socket.write(pipelined(20, 10));
    // As above: the connection is not read, which only a fixed pause can show.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.is(sockets[0]!.bytesRead, readBefore, 'the connection is not read while its answers wait');

    for (let answered = 0; answered < 30; answered += 1) {
      await eventually(`request ${answered} to reach the API`, () => pending.length > answered, { intervalMs: 5 });
      pending[answered]!();
    }
    await eventually('thirty answers', () => (client.received().match(/HTTP\/1\.1 200 OK/g) ?? []).length === 30, { intervalMs: 5 });
    const order = [...client.received().matchAll(/"workflowId":"(wf-\d+)"/g)].map((match) => match[1]);
    assert.equal(order, Array.from({ length: 30 }, (_, index) => `wf-${index}`), 'answered in order');
  } finally {
    client.socket.destroy();
    await server.close(100);
  }
});

test('pipelining: once the server knows a client is gone, its requests still waiting never reach the API; each is logged as aborted', async () => {
  const { server, api, logger } = await startHarness({ maxPipelinedRequests: 1 });
  let release!: () => void;
  api.overrides.getStatus = (run) =>
    api.calls.length === 1 ? new Promise<RunStatusView>((resolve) => (release = () => resolve(statusView(run.workflowId)))) : Promise.resolve(statusView(run.workflowId));
  const client = await rawClient(server.url);
  try {
    client.socket.write(pipelined(0, 10));
    await eventually('the first request to reach the API', () => api.calls.length >= 1, { intervalMs: 5 });
    // While requests wait the server does not read the connection, so it learns of the reset when it next writes:
    // the answer being built goes out into the void, and at most one more is built before the write fails.
    client.socket.resetAndDestroy();
    // Closed, the client's socket has sent its reset (on loopback it is at the server's end the same moment).
    await client.closed;
    release();
    await eventually('ten access-log lines', () => accessLog(logger).length === 10, { intervalMs: 5 });
    assert.ok(api.calls.length <= 3, `${api.calls.length} of 10 requests reached the API`);
    const aborted = accessLog(logger).filter((line) => line.aborted === true && line.status === 499);
    assert.ok(aborted.length >= 10 - api.calls.length, JSON.stringify(accessLog(logger)));
  } finally {
    await server.close(100);
  }
});

test('pipelining: a connection whose answers are read is served at full depth, in order', async () => {
  const { server, api } = await startHarness({ maxPipelinedRequests: 2 });
  api.overrides.getStatus = async (run) => statusView(run.workflowId);
  const client = await rawClient(server.url);
  try {
    client.socket.write(pipelined(0, 200));
    await eventually('200 answers', () => (client.received().match(/HTTP\/1\.1 200 OK/g) ?? []).length === 200, { intervalMs: 5 });
    assert.is(api.calls.length, 200);
  } finally {
    client.socket.destroy();
    await server.close(100);
  }
});

test.run();
