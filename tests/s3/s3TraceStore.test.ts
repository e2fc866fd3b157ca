// The S3 trace store against a real S3-compatible server (Versity S3 Gateway, real SigV4): the happy paths.
// Failure paths (missing bucket, bad credentials, outages, hangs) are in s3TraceStoreFailures.test.ts.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { S3TraceStore, type S3TraceStoreOptions } from '../../adapters/s3/index.js';
import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import { CorruptTraceError } from '../../core/trace/parseTrace.js';
import { startVersityGateway, type VersityGateway } from '../../scripts/infra/index.mjs';

const BUCKET = 'flowgate-traces';
let gateway: VersityGateway;
const stores: S3TraceStore[] = [];

function storeFor(options: Partial<S3TraceStoreOptions> = {}): S3TraceStore {
  const store = new S3TraceStore({
    bucket: BUCKET,
    endpoint: gateway.endpoint,
    region: gateway.region,
    forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
    ...options,
  });
  stores.push(store);
  return store;
}

function keyFor(workflowId: string, runId = crypto.randomUUID()): TraceKey {
  return { workflowName: 'order/flow', workflowId, runId, startedAt: new Date('2026-03-04T05:06:07.089Z') };
}

function recordFor(key: TraceKey, stepOutput: unknown = 'ok'): TraceRecord {
  const startedAt = key.startedAt.toISOString();
  return {
    workflowId: key.workflowId, runId: key.runId, workflowName: key.workflowName, input: { n: 1 }, output: { done: true },
    error: null, startedAt, closedAt: startedAt,
    steps: [{ name: 'charge', kind: 'step', input: null, output: stepOutput, error: null, startedAt, endedAt: startedAt, attempt: 1 }],
  };
}

test.before(async () => {
  gateway = await startVersityGateway({ log: () => {} });
  const admin = new S3Client({
    endpoint: gateway.endpoint, region: gateway.region, forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
  });
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  admin.destroy();
});

test.after(async () => {
  for (const store of stores) store.close();
  await gateway?.stop();
});

test('the constructor refuses options that could only fail later', () => {
  const valid = { bucket: BUCKET };
  assert.throws(() => new S3TraceStore({} as S3TraceStoreOptions), /bucket/);
  assert.throws(() => new S3TraceStore({ bucket: 'Not_A_Bucket' }), /bucket/);
  assert.throws(() => new S3TraceStore({ ...valid, endpoint: 'localhost:9000' }), /endpoint/);
  assert.throws(() => new S3TraceStore({ ...valid, region: '' }), /region/);
  assert.throws(() => new S3TraceStore({ ...valid, maxReadBytes: 0 }), /maxReadBytes/);
  assert.throws(() => new S3TraceStore({ ...valid, uploadAttempts: 1.5 }), /uploadAttempts/);
  assert.throws(() => new S3TraceStore({ ...valid, requestTimeoutMs: -1 }), /requestTimeoutMs/);
  new S3TraceStore(valid).close();
});

test('round trip: write returns the s3:// URI of the dated key, locate finds it, read returns the record', async () => {
  const store = storeFor({ prefix: '/team-a/traces/' });
  const key = keyFor('order 42/x');
  assert.is(await store.locate(key), undefined, 'nothing before the write');
  const record = recordFor(key);
  const location = await store.write(key, record);
  const objectKey = `team-a/traces/order%2Fflow/2026/03/04/2026-03-04T05:06:07.089Z_order%2042%2Fx_${key.runId}.json`;
  assert.is(location, `s3://${BUCKET}/${objectKey}`);
  assert.is(await store.locate(key), location);
  assert.equal(await store.read(location), record);
  // The gateway's posix backend keeps objects as files: the bytes really went through S3.
  assert.equal(JSON.parse(await readFile(join(gateway.dataDir, BUCKET, objectKey), 'utf8')), record);
});

test('no prefix: the key starts with the workflow name', async () => {
  const store = storeFor();
  const key = keyFor('plain');
  assert.is(await store.write(key, recordFor(key)), `s3://${BUCKET}/order%2Fflow/2026/03/04/2026-03-04T05:06:07.089Z_plain_${key.runId}.json`);
});

test('read: an object that is gone, or a location outside the bucket, is undefined', async () => {
  const store = storeFor();
  const key = keyFor('deleted');
  const location = await store.write(key, recordFor(key));
  const admin = new S3Client({
    endpoint: gateway.endpoint, region: gateway.region, forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
  });
  await admin.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: location.slice(`s3://${BUCKET}/`.length) }));
  admin.destroy();
  assert.is(await store.locate(key), undefined);
  assert.is(await store.read(location), undefined);
  assert.is(await store.read(`s3://other-bucket/${location.slice(`s3://${BUCKET}/`.length)}`), undefined);
  assert.is(await store.read('/etc/passwd'), undefined);
  assert.is(await store.read(`s3://${BUCKET}/`), undefined);
});

test('read: an object that is not JSON, or JSON that is not a trace, is a CorruptTraceError naming the location', async () => {
  const store = storeFor({ prefix: 'corrupt' });
  const key = keyFor('corrupt-1');
  const location = await store.write(key, recordFor(key));
  const admin = new S3Client({
    endpoint: gateway.endpoint, region: gateway.region, forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
  });
  try {
    for (const body of ['{"workflowId": "corrupt-1", "steps": [', '"a string"', '{"workflowId": "corrupt-1"}']) {
      await admin.send(new PutObjectCommand({ Bucket: BUCKET, Key: store.objectKeyOf(key), Body: body }));
      const error = await store.read(location).then(() => undefined, (caught: unknown) => caught);
      assert.instance(error, CorruptTraceError, body);
      assert.ok((error as Error).message.includes(location));
    }
  } finally {
    admin.destroy();
  }
});

test('a 10 MiB trace goes up and comes back whole', async () => {
  const store = storeFor();
  const key = keyFor('large');
  const record = recordFor(key, 'x'.repeat(10 * 1024 * 1024));
  const location = await store.write(key, record);
  const back = await store.read(location);
  assert.ok(back);
  assert.is((back.steps[0]?.output as string).length, 10 * 1024 * 1024);
  assert.equal(back, record);
});

test('read refuses a trace over maxReadBytes (by ContentLength) instead of buffering it', async () => {
  const logged: unknown[] = [];
  const logger = { info() {}, warn: (message: string, fields?: unknown) => logged.push({ message, fields }), error() {} };
  const writer = storeFor();
  const key = keyFor('over-the-cap');
  const location = await writer.write(key, recordFor(key, 'y'.repeat(2 * 1024 * 1024)));
  const reader = storeFor({ maxReadBytes: 1024 * 1024, logger });
  assert.is(await reader.locate(key), location, 'it exists');
  assert.is(await reader.read(location), undefined, 'but is not loaded');
  assert.match(JSON.stringify(logged), /larger than the read limit/);
});

test('concurrent runs writing traces through one store: every trace lands intact', async () => {
  const store = storeFor({ prefix: 'concurrent' });
  const keys = Array.from({ length: 25 }, (_, index) => keyFor(`run-${index}`));
  const locations = await Promise.all(keys.map((key, index) => store.write(key, recordFor(key, { index, pad: 'z'.repeat(50_000) }))));
  assert.is(new Set(locations).size, keys.length);
  const back = await Promise.all(locations.map((location) => store.read(location)));
  back.forEach((record, index) => assert.equal(record, recordFor(keys[index]!, { index, pad: 'z'.repeat(50_000) })));
  const located = await Promise.all(keys.map((key) => store.locate(key)));
  assert.equal(located, locations);
});

test.run();
