// The claim-check store (adapters/s3) and the Temporal payload codec on it (adapters/temporal/claimCheckCodec.ts),
// against a real Versity S3 Gateway: content-addressed keys, integrity and size checks, a missing object, and an
// unreachable or stalled store failing with TraceStoreUnavailableError within its deadline instead of hanging.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server, type Socket } from 'node:net';
import { CreateBucketCommand, DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { defaultPayloadConverter } from '@temporalio/common';
import { ClaimCheckCorruptError, ClaimCheckMissingError, S3TraceStore, type S3ClaimCheckStore } from '../../adapters/s3/index.js';
import { ClaimCheckCodec, CLAIM_CHECK_ENCODING } from '../../adapters/temporal/claimCheckCodec.js';
import { TraceStoreUnavailableError } from '../../core/domain/errors.js';
import { startVersityGateway, type VersityGateway } from '../../scripts/infra/index.mjs';
import { rejection } from '../support/rejection.js';

const BUCKET = 'flowgate-claim-store';
const PREFIX = '/payloads/';
const MAX_OBJECT_BYTES = 1024 * 1024;
let gateway: VersityGateway;
let admin: S3Client;
const traceStores: S3TraceStore[] = [];

function claimCheckStore(endpoint = gateway.endpoint, timeoutMs = 2_000): S3ClaimCheckStore {
  const traces = new S3TraceStore({
    bucket: BUCKET, prefix: PREFIX, endpoint, region: gateway.region, forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
  });
  traceStores.push(traces);
  return traces.claimCheckStore({ maxObjectBytes: MAX_OBJECT_BYTES, timeoutMs });
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const objectKey = (reference: string): string => `payloads/.claim-checks/${reference}`;
const encodingOf = (payload: { metadata?: Record<string, Uint8Array> | null }): string => new TextDecoder().decode(payload.metadata?.['encoding']);

test.before(async () => {
  gateway = await startVersityGateway({ log: () => {} });
  admin = new S3Client({
    endpoint: gateway.endpoint, region: gateway.region, forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
  });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

test.after(async () => {
  for (const store of traceStores) store.close();
  admin?.destroy();
  await gateway?.stop();
});

test('put stores the bytes under <prefix>/.claim-checks/<sha256>; the same bytes give the same key; get returns them', async () => {
  const store = claimCheckStore();
  assert.is(store.keyPrefix, 'payloads/.claim-checks/');
  const bytes = new TextEncoder().encode(`claim ${crypto.randomUUID()}`);
  const reference = await store.put(bytes);
  assert.is(reference, sha256(bytes));
  assert.is(await store.put(bytes), reference, 'storing the same payload again reuses its object');
  const listed = await admin.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: objectKey(reference) }));
  assert.equal(listed.Contents?.map((object) => object.Key), [objectKey(reference)]);
  assert.equal(Buffer.from(await store.get(reference)), Buffer.from(bytes));
});

test('get refuses what is not its own: a bad reference, an altered object, an object over the size cap; a missing one is named', async () => {
  const store = claimCheckStore();
  assert.instance(await rejection(store.get('../../etc/passwd')), ClaimCheckCorruptError);

  const reference = await store.put(new TextEncoder().encode('original'));
  await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: objectKey(reference), Body: 'altered' }));
  const altered = await rejection(store.get(reference));
  assert.instance(altered, ClaimCheckCorruptError);
  assert.match(altered.message, /SHA-256/);

  const huge = Buffer.alloc(MAX_OBJECT_BYTES + 1, 1);
  const hugeReference = sha256(huge);
  await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: objectKey(hugeReference), Body: huge }));
  const tooLarge = await rejection(store.get(hugeReference));
  assert.instance(tooLarge, ClaimCheckCorruptError);
  assert.match(tooLarge.message, /more than/);

  await admin.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: objectKey(reference) }));
  const missing = await rejection(store.get(reference));
  assert.instance(missing, ClaimCheckMissingError);
  assert.match(missing.message, /deleted or expired/);
});

test('an unreachable store: put and get fail with TraceStoreUnavailableError (503, Retry-After) naming the object', async () => {
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const { port } = closed.address() as { port: number };
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  const store = claimCheckStore(`http://127.0.0.1:${port}`);
  const put = await rejection(store.put(new Uint8Array([1, 2, 3])));
  assert.instance(put, TraceStoreUnavailableError);
  assert.match(put.message, /storing claim-check object s3:\/\/flowgate-claim-store\/payloads\/\.claim-checks\/[0-9a-f]{64} failed/);
  assert.is((put as InstanceType<typeof TraceStoreUnavailableError>).retryAfterSeconds, 5);
  const get = await rejection(store.get(sha256(new Uint8Array([1, 2, 3]))));
  assert.instance(get, TraceStoreUnavailableError);
});

test('a store that accepts connections but never answers: the deadline ends the wait with TraceStoreUnavailableError', async () => {
  const sockets = new Set<Socket>();
  const silent: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = silent.address() as { port: number };
    const store = claimCheckStore(`http://127.0.0.1:${port}`, 300);
    assert.instance(await rejection(store.put(new Uint8Array([4, 5, 6]))), TraceStoreUnavailableError);
    assert.instance(await rejection(store.get(sha256(new Uint8Array([4, 5, 6])))), TraceStoreUnavailableError);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  }
});

test('a throttle or a 5xx is tried again (the key is the content\'s); a refusal (403) is not', async () => {
  const bytes = new Uint8Array([7, 8, 9]);
  const requests: string[] = [];
  // A stand-in for S3 on loopback: each method's first request is throttled or fails, the next answers.
  const flaky = createHttpServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests.push(request.method ?? '');
      const tries = requests.filter((method) => method === request.method).length;
      if (request.url?.includes('denied')) return void response.writeHead(403, { 'content-type': 'application/xml' }).end('<Error><Code>AccessDenied</Code><Message>no</Message></Error>');
      if (tries === 1 && request.method === 'PUT') return void response.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>');
      if (tries === 1) return void response.writeHead(500, { 'content-type': 'application/xml' }).end('<Error><Code>InternalError</Code><Message>try again</Message></Error>');
      if (request.method === 'PUT') return void response.writeHead(200, { etag: '"e"' }).end();
      response.writeHead(200, { 'content-length': String(bytes.byteLength), 'content-type': 'application/octet-stream' }).end(Buffer.from(bytes));
    });
  });
  await new Promise<void>((resolve) => flaky.listen(0, '127.0.0.1', resolve));
  try {
    const endpoint = `http://127.0.0.1:${(flaky.address() as { port: number }).port}`;
    const store = claimCheckStore(endpoint);
    const reference = await store.put(bytes);
    assert.equal(await store.get(reference), Buffer.from(bytes));
    assert.equal(requests, ['PUT', 'PUT', 'GET', 'GET']);
    requests.length = 0;
    const denied = new S3TraceStore({ bucket: 'denied', endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    traceStores.push(denied);
    assert.instance(await rejection(denied.claimCheckStore({ maxObjectBytes: MAX_OBJECT_BYTES }).put(bytes)), TraceStoreUnavailableError);
    assert.equal(requests, ['PUT'], 'an access refusal is asked once');
  } finally {
    flaky.closeAllConnections();
    await new Promise<void>((resolve) => flaky.close(() => resolve()));
  }
});

test('the codec: payloads up to the threshold pass as they are; larger ones become a claim check and decode back whole', async () => {
  const codec = new ClaimCheckCodec({ store: claimCheckStore(), thresholdBytes: 1024 });
  const small = defaultPayloadConverter.toPayload({ small: true })!;
  const large = defaultPayloadConverter.toPayload({ blob: 'L'.repeat(4096), id: crypto.randomUUID() })!;
  const [smallEncoded, largeEncoded] = await codec.encode([small, large]);
  assert.ok(smallEncoded === small, 'a small payload is not touched');
  assert.is(encodingOf(largeEncoded!), CLAIM_CHECK_ENCODING);
  assert.ok((largeEncoded!.data?.length ?? 0) < 200, 'Temporal carries only the reference');
  assert.equal(await codec.encode([largeEncoded!]), [largeEncoded], 'a claim check is never wrapped again');
  const [smallDecoded, largeDecoded] = await codec.decode([smallEncoded!, largeEncoded!]);
  assert.ok(smallDecoded === small);
  assert.equal(defaultPayloadConverter.fromPayload(largeDecoded!), defaultPayloadConverter.fromPayload(large));
  assert.is(encodingOf(largeDecoded!), 'json/plain', 'the metadata comes back too');
});

test('the codec resolves claim checks anywhere in a raw API message, in place; a broken reference is an error', async () => {
  const codec = new ClaimCheckCodec({ store: claimCheckStore(), thresholdBytes: 16 });
  const original = defaultPayloadConverter.toPayload({ result: 'R'.repeat(100) })!;
  const [encoded] = await codec.encode([original]);
  const event = {
    eventId: { low: 7, high: 0, unsigned: false },
    activityTaskCompletedEventAttributes: { result: { payloads: [encoded] } },
    memo: { fields: { catalog: { ...encoded! } } },
    raw: new Uint8Array([1, 2]),
    nothing: null,
  };
  const resolved = await codec.resolveIn(event);
  assert.ok(resolved === event, 'the same message, resolved in place');
  assert.equal(defaultPayloadConverter.fromPayload(event.activityTaskCompletedEventAttributes.result.payloads[0]!), { result: 'R'.repeat(100) });
  assert.equal(defaultPayloadConverter.fromPayload(event.memo.fields.catalog), { result: 'R'.repeat(100) });
  const broken = { payload: { metadata: { encoding: new TextEncoder().encode(CLAIM_CHECK_ENCODING) }, data: new TextEncoder().encode('{"bytes":1}') } };
  assert.instance(await rejection(codec.resolveIn(broken)), TypeError);
});

test('the codec checks its options', () => {
  const store = claimCheckStore();
  assert.throws(() => new ClaimCheckCodec({ store, thresholdBytes: 0 }), /thresholdBytes must be a positive integer/);
  assert.throws(() => new ClaimCheckCodec({ store: {} as never, thresholdBytes: 1 }), /options.store must be a ClaimCheckStore/);
  assert.throws(() => claimCheckStoreWith({ maxObjectBytes: 0 }), /maxObjectBytes must be a positive integer/);
  assert.throws(() => claimCheckStoreWith({ maxObjectBytes: 1, timeoutMs: -1 }), /timeoutMs must be a positive integer/);
});

function claimCheckStoreWith(options: { maxObjectBytes: number; timeoutMs?: number }): S3ClaimCheckStore {
  const traces = new S3TraceStore({ bucket: BUCKET, endpoint: gateway.endpoint, forcePathStyle: true });
  traceStores.push(traces);
  return traces.claimCheckStore(options);
}

test.run();
