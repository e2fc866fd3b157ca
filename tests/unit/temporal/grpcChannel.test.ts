import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import http2 from 'node:http2';
import { connect as connectTcp, createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { GrpcChannel, type GrpcChannelOptions } from '../../../adapters/temporal/http2/grpcChannel.js';
import { GrpcCallError, frameOfMessage } from '../../../adapters/temporal/http2/grpcStatus.js';
import { answer, CERT, closedPort, fail, fakeServer, tcpProxy, type Seen } from '../../support/fakeGrpcServer.js';

/*
 * The HTTP/2 gRPC transport against real HTTP/2 servers on loopback that answer as a gRPC server would, or fail the ways
 * a server or network fails: every call's outcome and what the server saw of it.
 */

function options(address: string, more: Partial<GrpcChannelOptions> = {}): GrpcChannelOptions {
  return { address, maxReceiveBytes: 1024 * 1024, maxSendBytes: 1024 * 1024, keepaliveMs: 30_000, keepaliveTimeoutMs: 10_000, keepaliveWithoutCalls: false, ...more };
}

function call(channel: GrpcChannel, message: Uint8Array = Buffer.from('ping'), { deadline, signal, metadata = {} }: { deadline?: number; signal?: AbortSignal; metadata?: Record<string, string> } = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    channel.unary('/test.Service/Echo', metadata, message, { deadline, signal }, (error, reply) => (error ? reject(error) : resolve(reply!)));
  });
}

async function callError(promise: Promise<unknown>): Promise<GrpcCallError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, GrpcCallError);
    return error as GrpcCallError;
  }
  throw new Error('the call succeeded');
}

/** node's `ClientHttp2Session.setNextStreamID`, absent from its type definitions. */
function setNextStreamId(session: http2.ClientHttp2Session, id: number): void {
  (session as http2.ClientHttp2Session & { setNextStreamID(id: number): void }).setNextStreamID(id);
}

const channelSuite = suite('GrpcChannel: unary gRPC calls over node:http2');

channelSuite('a call sends one framed message with the gRPC headers and its metadata, and resolves with the one answer', async () => {
  const server = await fakeServer(({ stream, body }) => answer(stream, Buffer.concat([Buffer.from('echo:'), body.subarray(5)])));
  const channel = new GrpcChannel(options(server.address));
  try {
    const reply = await call(channel, Buffer.from('hello'), { deadline: Date.now() + 5000, metadata: { 'temporal-namespace': 'ns-1' } });
    assert.is(reply.toString(), 'echo:hello');
    const [{ headers, body }] = server.seen as [Seen];
    assert.is(headers[':path'], '/test.Service/Echo');
    assert.is(headers[':method'], 'POST');
    assert.is(headers['content-type'], 'application/grpc');
    assert.is(headers.te, 'trailers');
    assert.is(headers['temporal-namespace'], 'ns-1');
    assert.match(String(headers['grpc-timeout']), /^\d{1,4}m$/);
    assert.equal([...body.subarray(0, 5)], [0, 0, 0, 0, 5]);
    // A second call shares the connection.
    await call(channel);
    assert.is(server.sessions.length, 1);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('a connection that has used up its stream ids is left to finish and the next calls go on a new one', async () => {
  const server = await fakeServer(({ stream, body }) => answer(stream, body.subarray(5)));
  const channel = new GrpcChannel(options(server.address));
  try {
    await call(channel);
    // HTTP/2 numbers a client's streams 1, 3, 5, ... up to 2^31 - 1, and node then refuses every new request on the
    // connection while keeping it open: at a few hundred calls a second, weeks into a process's life.
    setNextStreamId(channel.usableLink().session, 2 ** 31 - 3);
    const replies = await Promise.all([1, 2, 3, 4].map((n) => call(channel, Buffer.from(`call ${n}`))));
    assert.equal(replies.map(String), ['call 1', 'call 2', 'call 3', 'call 4']);
    assert.is((await call(channel, Buffer.from('after'))).toString(), 'after');
    assert.is(server.sessions.length, 2);
    // Ids used up by a stream the channel did not open: the refused call is sent again on a new connection.
    const session = channel.usableLink().session;
    setNextStreamId(session, 2 ** 31 - 1);
    const other = session.request({ ':method': 'POST', ':path': '/test.Service/Echo', 'content-type': 'application/grpc' });
    other.resume();
    other.end(frameOfMessage(Buffer.from('other')));
    await new Promise((resolve) => other.once('close', resolve));
    assert.is((await call(channel, Buffer.from('refused'))).toString(), 'refused');
    assert.is(server.sessions.length, 3);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('an empty answer message is an empty buffer, not a failure; a deadline weeks away is not taken for a past one', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, new Uint8Array(0)));
  const channel = new GrpcChannel(options(server.address));
  try {
    assert.is((await call(channel)).length, 0);
    // node's timers overflow past 2^31 ms (24.8 days) and would fire at once.
    assert.is((await call(channel, undefined, { deadline: Date.now() + 25 * 24 * 3600_000 })).length, 0);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('an error status rejects with its code, its decoded message and its binary details as metadata', async () => {
  const details = Buffer.from([8, 6, 18, 3, 0xff, 0x00, 0x7f]);
  const server = await fakeServer(({ stream }) => fail(stream, GrpcStatus.ALREADY_EXISTS, 'Workflow exécution already started: 100%', { 'grpc-status-details-bin': details.toString('base64') }));
  const channel = new GrpcChannel(options(server.address));
  try {
    const error = await callError(call(channel));
    assert.is(error.code, GrpcStatus.ALREADY_EXISTS);
    assert.is(error.details, 'Workflow exécution already started: 100%');
    assert.is(error.message, '6 ALREADY_EXISTS: Workflow exécution already started: 100%');
    assert.equal(error.metadata.get('grpc-status-details-bin'), [details]);
    assert.equal(error.metadata.get('grpc-status'), []);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('an error status in trailers after a message is the call error', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, Buffer.from('partial'), { 'grpc-status': String(GrpcStatus.INTERNAL), 'grpc-message': 'broke' }));
  const channel = new GrpcChannel(options(server.address));
  try {
    const error = await callError(call(channel));
    assert.is(error.code, GrpcStatus.INTERNAL);
    assert.is(error.details, 'broke');
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('an HTTP error without a gRPC status maps by gRPC rules (503 is UNAVAILABLE, 401 UNAUTHENTICATED)', async () => {
  let status = 503;
  const server = await fakeServer(({ stream }) => {
    stream.respond({ ':status': status, 'content-type': 'text/plain' });
    stream.end('proxy says no');
  });
  const channel = new GrpcChannel(options(server.address));
  try {
    const unavailable = await callError(call(channel));
    assert.is(unavailable.code, GrpcStatus.UNAVAILABLE);
    assert.is(unavailable.details, 'Received HTTP status code 503');
    status = 401;
    assert.is((await callError(call(channel))).code, GrpcStatus.UNAUTHENTICATED);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('answers without a proper message fail: none is UNIMPLEMENTED (as grpc-js says), compressed or two are INTERNAL', async () => {
  const bodies = [Buffer.alloc(0), Buffer.from([1, 0, 0, 0, 1, 9]), Buffer.concat([frameOfMessage(Buffer.from('a')), frameOfMessage(Buffer.from('b'))])];
  const server = await fakeServer(({ stream }) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(bodies[server.seen.length - 1]);
  });
  const channel = new GrpcChannel(options(server.address));
  try {
    const outcomes = [];
    for (let index = 0; index < bodies.length; index += 1) {
      const error = await callError(call(channel));
      outcomes.push([error.code, error.details]);
    }
    assert.equal(outcomes, [
      [GrpcStatus.UNIMPLEMENTED, 'No message received'],
      [GrpcStatus.INTERNAL, 'Compressed message received, but no compression was asked for'],
      [GrpcStatus.INTERNAL, 'More than one message received in a unary answer'],
    ]);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('a call past its deadline fails DEADLINE_EXCEEDED and the server sees its stream cancelled', async () => {
  const server = await fakeServer(() => {});
  const channel = new GrpcChannel(options(server.address));
  try {
    const started = Date.now();
    const error = await callError(call(channel, undefined, { deadline: started + 150 }));
    assert.is(error.code, GrpcStatus.DEADLINE_EXCEEDED);
    assert.ok(Date.now() - started >= 140, 'not before the deadline');
    assert.is(await server.seen[0]!.closed, http2.constants.NGHTTP2_CANCEL);
    // A deadline already past is not sent at all.
    assert.is((await callError(call(channel, undefined, { deadline: Date.now() - 1 }))).code, GrpcStatus.DEADLINE_EXCEEDED);
    assert.is(server.seen.length, 1);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('an aborted call fails CANCELLED at once, the server sees its stream cancelled, and an aborted signal sends nothing', async () => {
  const server = await fakeServer(() => {});
  const channel = new GrpcChannel(options(server.address));
  try {
    const controller = new AbortController();
    const pending = callError(call(channel, undefined, { signal: controller.signal, deadline: Date.now() + 10_000 }));
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    controller.abort();
    const error = await pending;
    assert.is(error.code, GrpcStatus.CANCELLED);
    assert.is(error.details, 'Cancelled on client');
    assert.is(await server.seen[0]!.closed, http2.constants.NGHTTP2_CANCEL);
    assert.is((await callError(call(channel, undefined, { signal: controller.signal }))).code, GrpcStatus.CANCELLED);
    assert.is(server.seen.length, 1);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('messages over the limits fail RESOURCE_EXHAUSTED: a request before it is sent, an answer as it arrives', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, Buffer.alloc(4096, 1)));
  const channel = new GrpcChannel(options(server.address, { maxSendBytes: 100, maxReceiveBytes: 1000 }));
  try {
    const tooBig = await callError(call(channel, Buffer.alloc(101)));
    assert.is(tooBig.code, GrpcStatus.RESOURCE_EXHAUSTED);
    assert.is(tooBig.details, 'Sent message larger than max (101 vs. 100)');
    assert.is(server.seen.length, 0);
    const answerTooBig = await callError(call(channel, Buffer.alloc(10)));
    assert.is(answerTooBig.code, GrpcStatus.RESOURCE_EXHAUSTED);
    assert.match(answerTooBig.details, /^Received message larger than max \(\d+ vs\. 1000\)$/);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('a stream the server refused unprocessed is sent once more; refused twice, the call is UNAVAILABLE', async () => {
  let refusals = 1;
  const server = await fakeServer(({ stream }) => {
    if (refusals-- > 0) stream.close(http2.constants.NGHTTP2_REFUSED_STREAM);
    else answer(stream, Buffer.from('ok'));
  });
  const channel = new GrpcChannel(options(server.address));
  try {
    assert.is((await call(channel)).toString(), 'ok');
    assert.is(server.seen.length, 2);
    refusals = 2;
    const error = await callError(call(channel));
    assert.is(error.code, GrpcStatus.UNAVAILABLE);
    assert.is(server.seen.length, 4);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('after the server says GOAWAY, the next call opens a new connection', async () => {
  const server = await fakeServer(({ stream }) => {
    answer(stream, Buffer.from('ok'));
    stream.session?.goaway();
  });
  const channel = new GrpcChannel(options(server.address));
  try {
    await call(channel);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.is((await call(channel)).toString(), 'ok');
    assert.is(server.sessions.length, 2);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('a connection dropped mid-call fails the call UNAVAILABLE, and the next call reconnects', async () => {
  let drop = true;
  const server = await fakeServer(({ stream }) => {
    if (drop) {
      drop = false;
      stream.session?.destroy();
    } else answer(stream, Buffer.from('back'));
  });
  const channel = new GrpcChannel(options(server.address));
  try {
    const error = await callError(call(channel));
    assert.is(error.code, GrpcStatus.UNAVAILABLE);
    assert.is((await call(channel)).toString(), 'back');
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('a connection dropped after the answer began fails the call UNAVAILABLE, not CANCELLED', async () => {
  const server = await fakeServer(({ stream }) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
    stream.write(Buffer.from([0, 0, 0, 0, 9, 1]));
    setTimeout(() => stream.session?.destroy(), 20);
  });
  const channel = new GrpcChannel(options(server.address));
  try {
    const error = await callError(call(channel));
    assert.is(error.code, GrpcStatus.UNAVAILABLE);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite('a server that is not there: calls fail UNAVAILABLE, ready() retries until its deadline and says so', async () => {
  const port = await closedPort();
  const channel = new GrpcChannel(options(`127.0.0.1:${port}`));
  try {
    const error = await callError(call(channel, undefined, { deadline: Date.now() + 2000 }));
    assert.is(error.code, GrpcStatus.UNAVAILABLE);
    assert.match(error.details, /ECONNREFUSED/);
    const started = Date.now();
    try {
      await channel.ready(started + 300);
      assert.unreachable('ready() resolved');
    } catch (failure) {
      assert.match((failure as Error).message, /^Failed to connect before the deadline: .*ECONNREFUSED/);
    }
    assert.ok(Date.now() - started >= 290, 'ready() gave up before its deadline');
  } finally {
    channel.close();
  }
});

channelSuite('after a failed connect, calls fail at once for the backoff instead of each opening a connection; the next connect after it goes through', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, Buffer.from('ok')));
  // Accepts each connection and, while `refusing`, closes it at once: a socket, never an HTTP/2 server.
  let refusing = true;
  let accepted = 0;
  const sockets: Socket[] = [];
  const [host, port] = [server.address.split(':')[0]!, Number(server.address.split(':')[1])];
  const gate: TcpServer = createTcpServer((client) => {
    accepted += 1;
    client.on('error', () => {});
    if (refusing) return client.destroy();
    const upstream = connectTcp(port, host);
    upstream.on('error', () => {});
    sockets.push(client, upstream);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => gate.listen(0, '127.0.0.1', resolve));
  const channel = new GrpcChannel(options(`127.0.0.1:${(gate.address() as AddressInfo).port}`));
  try {
    assert.is((await callError(call(channel))).code, GrpcStatus.UNAVAILABLE);
    assert.is(accepted, 1);
    for (let index = 0; index < 5; index += 1) {
      const error = await callError(call(channel));
      assert.is(error.code, GrpcStatus.UNAVAILABLE);
      assert.match(error.details, /^No connection established\. Last error: /);
    }
    assert.is(accepted, 1, 'no connection was opened during the backoff');
    refusing = false;
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.is((await call(channel)).toString(), 'ok');
    assert.is(accepted, 2);
  } finally {
    channel.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => gate.close(() => resolve()));
    await server.close();
  }
});

channelSuite('a server that stops answering: the keepalive ping goes unanswered and the call fails UNAVAILABLE before its deadline', async () => {
  // Accepts the connection and never says a word: not even the HTTP/2 settings, let alone a ping's answer.
  const sockets: Socket[] = [];
  const silent: TcpServer = createTcpServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const channel = new GrpcChannel(options(`127.0.0.1:${(silent.address() as AddressInfo).port}`, { keepaliveMs: 100, keepaliveTimeoutMs: 100 }));
  try {
    const started = Date.now();
    const error = await callError(call(channel, undefined, { deadline: started + 5000 }));
    assert.is(error.code, GrpcStatus.UNAVAILABLE);
    assert.match(error.details, /keepalive ping unanswered for 100 ms/);
    assert.ok(Date.now() - started < 2000);
  } finally {
    channel.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

channelSuite('a connection that dies between calls is noticed by the keepalive and replaced before the next call', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, Buffer.from('ok')));
  const proxy = await tcpProxy(server.address);
  const channel = new GrpcChannel(options(proxy.address, { keepaliveMs: 100, keepaliveTimeoutMs: 100, keepaliveWithoutCalls: true }));
  try {
    await call(channel);
    proxy.freeze();
    await new Promise((resolve) => setTimeout(resolve, 400));
    const started = Date.now();
    assert.is((await call(channel, undefined, { deadline: started + 3000 })).toString(), 'ok');
    assert.ok(Date.now() - started < 1000, 'the call did not wait on the dead connection');
    assert.is(server.sessions.length, 2);
  } finally {
    channel.close();
    await proxy.close();
    await server.close();
  }
});

channelSuite('a call cancelled while the connection is being made is never sent', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, Buffer.from('ok')), { tls: true });
  const proxy = await tcpProxy(server.address, { delayMs: 400 });
  const channel = new GrpcChannel(options(proxy.address, { tls: { ca: CERT, servername: 'localhost' } }));
  try {
    const controller = new AbortController();
    const pending = callError(call(channel, undefined, { signal: controller.signal, deadline: Date.now() + 5000 }));
    setTimeout(() => controller.abort(), 50);
    assert.is((await pending).code, GrpcStatus.CANCELLED);
    // The connection is made after all; the cancelled call is not on it.
    assert.is((await call(channel, undefined, { deadline: Date.now() + 5000 })).toString(), 'ok');
    assert.is(server.seen.length, 1);
  } finally {
    channel.close();
    await proxy.close();
    await server.close();
  }
});

channelSuite('close() ends a ready() waiting between connect attempts, and a call waiting on the connection', async () => {
  const port = await closedPort();
  const channel = new GrpcChannel(options(`127.0.0.1:${port}`));
  const started = Date.now();
  const waiting = channel.ready(started + 10_000).then(
    () => undefined,
    (error: unknown) => error as Error,
  );
  setTimeout(() => channel.close(), 100);
  const error = await waiting;
  assert.is(error?.message, 'The connection is closed');
  assert.ok(Date.now() - started < 1000, 'ready() ended with close()');
  const server = await fakeServer(() => {}, { tls: true });
  const proxy = await tcpProxy(server.address, { delayMs: 2000 });
  const connecting = new GrpcChannel(options(proxy.address, { tls: { ca: CERT, servername: 'localhost' } }));
  try {
    const pending = callError(call(connecting, undefined, { deadline: Date.now() + 5000 }));
    setTimeout(() => connecting.close(), 100);
    assert.is((await pending).code, GrpcStatus.UNAVAILABLE);
    assert.ok(Date.now() - started < 2000, 'the call ended with close(), not with its deadline');
  } finally {
    connecting.close();
    await proxy.close();
    await server.close();
  }
});

channelSuite('a closed channel refuses calls with UNAVAILABLE and sends nothing', async () => {
  const server = await fakeServer(({ stream }) => answer(stream, Buffer.from('ok')));
  const channel = new GrpcChannel(options(server.address));
  try {
    await call(channel);
    channel.close();
    const error = await callError(call(channel));
    assert.is(error.code, GrpcStatus.UNAVAILABLE);
    assert.is(error.details, 'Channel has been shut down');
    assert.is(server.seen.length, 1);
  } finally {
    channel.close();
    await server.close();
  }
});

channelSuite.run();
