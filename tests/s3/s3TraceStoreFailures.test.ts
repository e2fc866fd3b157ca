// The S3 trace store when S3 fails, against a real Versity S3 Gateway: a missing bucket, wrong credentials, a gateway
// that stops mid-run (and comes back), a server that accepts connections but never answers. Uploads must fail in
// bounded time without failing the run; lookups must fail fast with TraceStoreUnavailableError (HTTP 503).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { FsTraceStore } from '../../adapters/fs/index.js';
import { S3TraceStore, type S3TraceStoreOptions } from '../../adapters/s3/index.js';
import type { RunDescription } from '../../core/domain/run.js';
import type { TraceKey } from '../../core/domain/trace.js';
import { locateTrace } from '../../core/trace/locateTrace.js';
import { buildTraceRecord, recordTrace, type ClosedRunRecord } from '../../core/trace/recordTrace.js';
import { traceKeyOf } from '../../core/trace/traceKey.js';
import type { Logger } from '../../ports/logger.js';
import { startVersityGateway, type VersityGateway } from '../../scripts/infra/index.mjs';
import { rejection } from '../support/rejection.js';
import { eventually } from '../support/eventually.js';

const BUCKET = 'flowgate-traces';
let gateway: VersityGateway;
const stores: S3TraceStore[] = [];

interface LogLine { level: string; message: string; fields: Record<string, unknown> }
function capturingLogger(): Logger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: string) => (message: string, fields: Record<string, unknown> = {}) => lines.push({ level, message, fields });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

function storeFor(options: Partial<S3TraceStoreOptions> = {}): S3TraceStore {
  const store = new S3TraceStore({
    bucket: BUCKET, endpoint: gateway.endpoint, region: gateway.region, forcePathStyle: true,
    credentials: { accessKeyId: gateway.accessKey, secretAccessKey: gateway.secretKey },
    uploadRetryDelayMs: 50, requestTimeoutMs: 2_000, uploadTimeoutMs: 2_000,
    ...options,
  });
  stores.push(store);
  return store;
}

function closedRun(workflowId: string): ClosedRunRecord {
  const startedAt = new Date('2026-05-06T07:08:09.010Z');
  const runId = crypto.randomUUID();
  const run: RunDescription = {
    workflowId, runId, firstRunId: runId, workflowName: 'billing', catalog: 'main', status: 'completed',
    startedAt, closedAt: new Date(startedAt.getTime() + 1_000),
  };
  return { run, input: { a: 1 }, output: { b: 2 }, failure: null, steps: [] };
}

const keyOf = (closed: ClosedRunRecord): TraceKey => traceKeyOf(closed.run);

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const startedAt = Date.now();
  const value = await work();
  return [value, Date.now() - startedAt];
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

test('missing bucket: the upload fails at once (no pointless retries), logged with the run ids', async () => {
  const logger = capturingLogger();
  const store = storeFor({ bucket: 'no-such-bucket', logger });
  const closed = closedRun('missing-bucket');
  const error = await rejection(store.write(keyOf(closed), buildTraceRecord(closed)));
  assert.match(error.message, /NoSuchBucket/);
  assert.is(logger.lines.length, 1, 'one attempt');
  assert.is(logger.lines[0]?.fields.runId, closed.run.runId);
  assert.is(logger.lines[0]?.fields.workflowId, 'missing-bucket');
  // A HEAD answer has no body, so "no bucket" looks like "no object": there is no remote trace.
  assert.is(await store.locate(keyOf(closed)), undefined);
  const read = await rejection(store.read(`s3://no-such-bucket/billing/x.json`));
  assert.is(read.name, 'TraceStoreUnavailableError');
});

test('wrong credentials: the upload fails without retries; lookups throw TraceStoreUnavailableError', async () => {
  const logger = capturingLogger();
  const store = storeFor({ credentials: { accessKeyId: gateway.accessKey, secretAccessKey: 'wrong' }, logger });
  const closed = closedRun('bad-credentials');
  const error = await rejection(store.write(keyOf(closed), buildTraceRecord(closed)));
  assert.match(error.message, /HTTP 403/);
  assert.is(logger.lines.length, 1);
  const located = await rejection(store.locate(keyOf(closed)));
  assert.is(located.name, 'TraceStoreUnavailableError');
  assert.is(located.message, 'the remote trace store is unreachable');
  const read = await rejection(store.read(`s3://${BUCKET}/billing/x.json`));
  assert.is(read.name, 'TraceStoreUnavailableError');
});

test('gateway stopped mid-run: the run still records its local trace, the upload gives up after bounded retries', async () => {
  const directory = await mkdtemp(join(tmpdir(), 'fg-s3-outage-'));
  const logger = capturingLogger();
  const remote = storeFor({ logger, uploadAttempts: 4, uploadRetryDelayMs: 100 });
  const traces = { local: new FsTraceStore({ directory }), remote };
  const closed = closedRun('outage');
  await gateway.pause();
  try {
    const [, elapsed] = await timed(() => recordTrace(traces, logger, closed));
    assert.ok(elapsed < 10_000, `gave up in ${elapsed} ms`);
    const attempts = logger.lines.filter((line) => line.message === 'trace upload attempt failed');
    assert.equal(attempts.map((line) => line.fields.attempt), [1, 2, 3, 4]);
    const failure = logger.lines.find((line) => line.message === 'trace write failed');
    assert.ok(failure, 'recordTrace logs the final failure');
    assert.is(failure.fields.runId, closed.run.runId);
    assert.is(failure.fields.store, 'remote');
    const lookup = await rejection(remote.locate(keyOf(closed)));
    assert.is(lookup.name, 'TraceStoreUnavailableError', 'a refused connection is "unreachable", not "no trace"');
    // What a run's result shows: the local trace only, no `remote`.
    const destinations = await locateTrace(traces, keyOf(closed), logger);
    assert.equal(Object.keys(destinations), ['local']);
    assert.ok(await traces.local.read(destinations.local!));
  } finally {
    await gateway.start();
    await rm(directory, { recursive: true, force: true });
  }
  assert.is(await remote.locate(keyOf(closed)), undefined, 'nothing half-written appeared later');
});

test('a gateway that comes back during the backoff gets the trace after all', async () => {
  const logger = capturingLogger();
  const store = storeFor({ logger, uploadAttempts: 4, uploadRetryDelayMs: 500 });
  const closed = closedRun('comes-back');
  await gateway.pause();
  const writing = store.write(keyOf(closed), buildTraceRecord(closed));
  // Restart as soon as the first attempt has failed; the second attempt is 500 ms later.
  await eventually('the first attempt to fail', () => logger.lines.some((line) => line.fields.attempt === 1), { intervalMs: 20 });
  await gateway.start();
  const location = await writing;
  assert.ok(logger.lines.length >= 1 && logger.lines.every((line) => line.fields.willRetry === true));
  assert.is(await store.locate(keyOf(closed)), location);
  assert.equal(await store.read(location), buildTraceRecord(closed));
});

test('a server that accepts connections but never answers: every call ends at its deadline', async () => {
  const sockets = new Set<Socket>();
  const silent: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const { port } = silent.address() as { port: number };
  try {
    const store = storeFor({ endpoint: `http://127.0.0.1:${port}`, requestTimeoutMs: 300, uploadTimeoutMs: 300, uploadAttempts: 2 });
    const closed = closedRun('hang');
    const [located, locateMs] = await timed(() => rejection(store.locate(keyOf(closed))));
    assert.is(located.name, 'TraceStoreUnavailableError');
    assert.ok(locateMs < 2_000, `locate gave up in ${locateMs} ms`);
    const [read, readMs] = await timed(() => rejection(store.read(`s3://${BUCKET}/billing/x.json`)));
    assert.is(read.name, 'TraceStoreUnavailableError');
    assert.ok(readMs < 2_000, `read gave up in ${readMs} ms`);
    const [, writeMs] = await timed(() => rejection(store.write(keyOf(closed), buildTraceRecord(closed))));
    assert.ok(writeMs < 3_000, `write gave up in ${writeMs} ms`);
  } finally {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => silent.close(resolve));
  }
});

test.run();
