// Fault: the S3 store of remote traces goes down while runs upload their traces, on the engine under test
// (FLOWGATE_TEST_ENGINE; scripts/suites.mjs runs this file once per engine). The promise (README "Remote traces"):
// a failed upload never fails the run; the local trace is written; the failure is logged with the run ids.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { stat } from 'node:fs/promises';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startVersityGateway, type VersityGateway } from '../../scripts/infra/index.mjs';
import { startTestApi, type LogLine, type TestApi } from '../support/engines.js';
import { call, uniqueId } from '../support/http.js';
import { eventually } from '../support/eventually.js';

const BUCKET = 'flowgate-fault-traces';
const RUNS = 40;
/** Kill the store once this many runs have answered: the others are closing and uploading. */
const KILL_AFTER_ANSWERS = 5;

interface Context {
  /** uvu swallows an error thrown by a before hook: kept for the tests to rethrow. */
  setupError?: unknown;
  gateway?: VersityGateway;
  api?: TestApi;
  s3?: S3Client;
  saved: Record<string, string | undefined>;
}

const down = suite<Context>(`S3 down during trace uploads (${process.env.FLOWGATE_TEST_ENGINE ?? 'memory'} engine)`);

down.before(async (context) => {
  context.saved = { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY };
  try {
    context.gateway = await startVersityGateway({ log: () => {} });
    const { endpoint, region, accessKey, secretKey } = context.gateway;
    context.s3 = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
    await context.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
    // flowgate gets its credentials from the SDK's chain, whose first link is the environment.
    process.env.AWS_ACCESS_KEY_ID = accessKey;
    process.env.AWS_SECRET_ACCESS_KEY = secretKey;
    context.api = await startTestApi({ TRACE_S3_BUCKET: BUCKET, TRACE_S3_PREFIX: 'faults', S3_ENDPOINT: endpoint, S3_REGION: region });
  } catch (error) {
    context.setupError = error;
  }
});

down.after(async (context) => {
  await context.api?.close();
  context.s3?.destroy();
  await context.gateway?.stop();
  for (const [name, value] of Object.entries(context.saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

function objectKeyOf(uri: string): string {
  return uri.replace(`s3://${BUCKET}/`, '');
}

async function objectExists(s3: S3Client, api: TestApi, run: { workflowId: string; runId: string }): Promise<boolean> {
  // The trace-log endpoint knows the object key; HeadObject on it says whether the upload landed.
  const log = await call(api, 'GET', `/workflow/${run.workflowId}/runs/${run.runId}/trace-log`);
  if (log.status === 200 && log.body.source === 'remote') {
    return true;
  }
  return false;
}

const writeFailures = (logs: LogLine[], runId: string): LogLine[] =>
  logs.filter((line) => line.msg === 'trace write failed' && line.store === 'remote' && line.runId === runId);

down('S3 killed while 40 runs upload: every run completes with its local trace; each missing upload is logged', async (context) => {
  if (context.setupError) throw context.setupError;
  const { api, gateway, s3 } = context as Required<Context>;
  const before = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'up' } } });
  assert.match(before.body.trace.remote, /^s3:\/\//, 'uploads work before the fault');

  let answered = 0;
  let killed: Promise<void> | undefined;
  const runs = await Promise.all(
    Array.from({ length: RUNS }, (_, index) =>
      call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId: uniqueId(`s3-kill-${index}`), input: { message: `run ${index}` } } }).finally(() => {
        answered += 1;
        if (answered === KILL_AFTER_ANSWERS) killed = gateway.kill('SIGKILL');
      }),
    ),
  );
  await killed;
  assert.ok(killed, 'the store was killed while runs were in flight');

  for (const run of runs) {
    assert.is(run.status, 200, run.text);
    assert.is(run.body.status, 'completed');
    assert.ok((await stat(run.body.trace.local)).isFile(), `local trace of ${run.body.workflowId}`);
  }
  const withoutRemote = runs.filter((run) => !run.body.trace.remote);
  assert.ok(withoutRemote.length > 0, 'some uploads were cut off');

  // Back up: every run is accounted for. Its object is in the bucket, or its failed upload was logged (after every
  // retry) with its ids, as an error, not a crash.
  await gateway.start();
  let logged = 0;
  for (const run of runs) {
    const failures = writeFailures(api.logs, run.body.runId);
    const uploaded = run.body.trace.remote
      ? await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: objectKeyOf(run.body.trace.remote) })).then(() => true)
      : await objectExists(s3, api, run.body);
    // Both can be true: an upload the kill cut may have reached the store before its answer was lost, and the
    // uploader, seeing only the broken connection, logs it as failed.
    assert.ok(uploaded || failures.length > 0, `${run.body.workflowId}: uploaded ${uploaded}, failures logged ${failures.length}`);
    if (failures.length > 0) {
      logged += 1;
      assert.is(failures[0]!.workflowId, run.body.workflowId);
      const attempts = api.logs.filter((line) => line.msg === 'trace upload attempt failed' && line.runId === run.body.runId);
      assert.is(attempts.at(-1)?.willRetry, false, 'the last attempt gave up');
    }
  }
  process.stdout.write(`\n  ${runs.length - withoutRemote.length} uploads done before the kill, ${logged} logged as failed\n`);
  const after = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'back' } } });
  assert.match(after.body.trace.remote, /^s3:\/\//, 'uploads work again once the store is back');
});

down('S3 stalled (connections accepted, never answered): runs still answer within seconds; the upload finishes later', async (context) => {
  if (context.setupError) throw context.setupError;
  const { api, gateway } = context as Required<Context>;
  gateway.freeze();
  let thawed = false;
  try {
    const startedAt = Date.now();
    const runs = await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId: uniqueId(`s3-stall-${index}`), input: { message: 'stalled' }, timeout: 30 } }),
      ),
    );
    const took = Date.now() - startedAt;
    process.stdout.write(`\n  5 runs answered in ${took} ms with the store stalled\n`);
    // Before the fix a run waited for the whole upload budget (4 attempts of 30 s): 408 here, minutes on Temporal.
    assert.ok(took < 12_000, `answered in ${took} ms`);
    for (const run of runs) {
      assert.is(run.status, 200, run.text);
      assert.is(run.body.status, 'completed');
      assert.ok((await stat(run.body.trace.local)).isFile());
      assert.is(run.body.trace.remote, undefined);
      const waiting = api.logs.find((line) => line.msg === 'trace upload still running; the run closes without waiting for it' && line.runId === run.body.runId);
      assert.ok(waiting, `the late upload of ${run.body.workflowId} is logged`);
    }
    gateway.thaw();
    thawed = true;
    // The uploads carried on in the background: once the store answers they land, and the trace log serves them.
    for (const run of runs) {
      let last = '';
      await eventually(
        () => `the late upload of ${run.body.workflowId} to land (last answer: ${last})`,
        async () => {
          const log = await call(api, 'GET', `/workflow/${run.body.workflowId}/runs/${run.body.runId}/trace-log`);
          last = `${log.status} ${log.text}`;
          return log.status === 200 && log.body.source === 'remote';
        },
      );
      assert.ok(api.logs.some((line) => line.msg === 'trace uploaded after its run closed' && line.runId === run.body.runId));
    }
  } finally {
    if (!thawed) gateway.thaw();
  }
});

down.run();
