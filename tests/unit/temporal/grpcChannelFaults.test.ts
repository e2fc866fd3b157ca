import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http2 from 'node:http2';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { GrpcChannel, type GrpcChannelOptions } from '../../../adapters/temporal/http2/grpcChannel.js';
import { GrpcCallError } from '../../../adapters/temporal/http2/grpcStatus.js';
import { answer, CERT, fakeServer } from '../../support/fakeGrpcServer.js';

/*
 * The HTTP/2 gRPC transport against servers that misbehave at the edges: a connect that never completes, streams the
 * server resets, a stream limit met on a fresh connection. Each outcome is the one grpc-js gives.
 */

function options(address: string, more: Partial<GrpcChannelOptions> = {}): GrpcChannelOptions {
  return { address, maxReceiveBytes: 1024 * 1024, maxSendBytes: 1024 * 1024, keepaliveMs: 30_000, keepaliveTimeoutMs: 10_000, keepaliveWithoutCalls: false, ...more };
}

function outcome(channel: GrpcChannel, deadlineMs: number, metadata: Record<string, string> = {}): Promise<GrpcCallError | Buffer> {
  return new Promise((resolve) => {
    channel.unary('/test.Service/Echo', metadata, Buffer.from('ping'), { deadline: Date.now() + deadlineMs }, (error, reply) => resolve(error ?? reply!));
  });
}

/** A TCP listener that accepts and never says a word: a TLS handshake to it hangs (a stuck frontend, a dead backend). */
async function silentListener(): Promise<{ address: string; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
    // Neither the listener nor what it accepted holds the process: what a test counts is the client's.
    socket.unref();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return {
    address: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const giveUp = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > giveUp) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const heldSockets = () => process.getActiveResourcesInfo().filter((resource) => resource === 'TCPSocketWrap').length;

const faults = suite('GrpcChannel: servers that misbehave at the edges');

faults('calls that end while their connection is still being made leave no hold on it behind', async () => {
  const listener = await silentListener();
  const channel = new GrpcChannel(options(listener.address, { tls: { ca: CERT, servername: 'localhost' }, connectTimeoutMs: 60_000 }));
  try {
    // Sockets of earlier suites in this process finish closing first.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const before = heldSockets();
    const failures = await Promise.all(Array.from({ length: 50 }, () => outcome(channel, 50)));
    assert.ok(failures.every((failure) => failure instanceof GrpcCallError && failure.code === GrpcStatus.DEADLINE_EXCEEDED));
    // The connect goes on (unreferenced), but no call holds the process open for it any more.
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(heldSockets() <= before, 'no socket held open by the abandoned connect');
  } finally {
    channel.close();
    await listener.close();
  }
});

faults('a connect that never completes is given up after the connect timeout: its calls fail UNAVAILABLE, not at their deadlines', async () => {
  const listener = await silentListener();
  const channel = new GrpcChannel(options(listener.address, { tls: { ca: CERT, servername: 'localhost' }, connectTimeoutMs: 300 }));
  try {
    const started = Date.now();
    const failures = await Promise.all([outcome(channel, 10_000), outcome(channel, 10_000)]);
    for (const failure of failures) {
      assert.instance(failure, GrpcCallError);
      assert.is((failure as GrpcCallError).code, GrpcStatus.UNAVAILABLE);
      assert.match((failure as GrpcCallError).details, /did not answer within 300 ms/);
    }
    assert.ok(Date.now() - started < 5000, 'the calls failed at the connect timeout');
    // The next connect backs off, and ready() names why the last one failed.
    const next = await outcome(channel, 10_000);
    assert.match((next as GrpcCallError).details, /No connection established.*did not answer within 300 ms/);
  } finally {
    channel.close();
    await listener.close();
  }
});

faults('a stream the server resets fails with the status its reset code means, as grpc-js reports it', async () => {
  const server = await fakeServer(({ stream, headers }) => stream.close(Number(headers['x-reset'])));
  const channel = new GrpcChannel(options(server.address));
  try {
    const expected: [number, number, RegExp][] = [
      [1, GrpcStatus.INTERNAL, /RST_STREAM with code 1/], // PROTOCOL_ERROR
      [2, GrpcStatus.INTERNAL, /RST_STREAM with code 2/], // INTERNAL_ERROR
      [11, GrpcStatus.RESOURCE_EXHAUSTED, /Bandwidth exhausted/], // ENHANCE_YOUR_CALM
      [12, GrpcStatus.PERMISSION_DENIED, /not secure enough/], // INADEQUATE_SECURITY
      [7, GrpcStatus.UNAVAILABLE, /Stream refused by server/], // REFUSED_STREAM, again on the resend
      [8, GrpcStatus.CANCELLED, /cancelled/], // CANCEL
    ];
    for (const [code, status, details] of expected) {
      const failure = await outcome(channel, 5000, { 'x-reset': String(code) });
      assert.instance(failure, GrpcCallError, `reset ${code}`);
      assert.is((failure as GrpcCallError).code, status, `reset ${code}`);
      assert.match((failure as GrpcCallError).details, details);
    }
    // Resets end streams, not the connection: every call went on the one connection.
    assert.is(server.sessions.length, 1);
  } finally {
    channel.close();
    await server.close();
  }
});

faults('on a new connection calls wait for the server\'s settings: a burst over its stream limit queues instead of being refused', async () => {
  let goneAway = false;
  const server = await fakeServer(
    ({ stream, body }) => {
      // The first connection goes away under the burst; the calls it never took are sent again on a new one.
      if (!goneAway && server.seen.length === 2) {
        goneAway = true;
        stream.session!.goaway(0, 2 ** 31 - 1);
      }
      setTimeout(() => answer(stream, body.subarray(5)), 50);
    },
    { settings: { maxConcurrentStreams: 2 } },
  );
  const channel = new GrpcChannel(options(server.address));
  try {
    await channel.ready(Date.now() + 5000);
    const replies = await Promise.all(Array.from({ length: 8 }, () => outcome(channel, 10_000)));
    assert.equal(replies.map((reply) => (reply instanceof GrpcCallError ? `${reply.code} ${reply.details}` : reply.toString())), Array(8).fill('ping'));
    assert.is(server.sessions.length, 2);
  } finally {
    channel.close();
    await server.close();
  }
});

faults('a server that says the keepalive pings come too often gets them half as often on the next connection', async () => {
  const pingsAt: number[][] = [];
  const server = await fakeServer(({ stream, body }) => answer(stream, body.subarray(5)));
  const channel = new GrpcChannel(options(server.address, { keepaliveMs: 100, keepaliveWithoutCalls: true }));
  try {
    await channel.ready(Date.now() + 5000);
    const watch = (index: number) => {
      pingsAt[index] = [];
      server.sessions[index]!.on('ping', () => pingsAt[index]!.push(performance.now()));
    };
    watch(0);
    await until(() => pingsAt[0]!.length >= 2);
    server.sessions[0]!.goaway(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM, 0, Buffer.from('too_many_pings'));
    // Once the client has heard the GOAWAY, the next call opens the second connection.
    await until(() => !channel.usableLink().session.closed && server.sessions.length === 2);
    assert.instance(await outcome(channel, 5000), Buffer);
    assert.is(server.sessions.length, 2);
    watch(1);
    await until(() => pingsAt[1]!.length >= 3);
    const gaps = pingsAt[1]!.slice(1).map((at, index) => at - pingsAt[1]![index]!);
    // The doubled interval is 200 ms, the first 100: timers never fire early, but the server may see a ping late and
    // the next one on time (CI of cbb2ea2, under load: 185 ms), so the bound sits between the two.
    assert.ok(gaps.every((gap) => gap >= 150), `gaps between pings ${gaps.map(Math.round).join(', ')} ms`);
  } finally {
    channel.close();
    await server.close();
  }
});

faults.run();
