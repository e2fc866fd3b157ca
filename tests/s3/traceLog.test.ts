import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { rm, stat } from 'node:fs/promises';
import { CreateBucketCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startVersityGateway, type VersityGateway } from '../../scripts/infra/index.mjs';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call, uniqueId } from '../support/http.js';

// Remote traces end to end, on the engine under test (FLOWGATE_TEST_ENGINE), against a real S3-compatible server.
const remote = suite<{ gateway: VersityGateway; api: TestApi; s3: S3Client; saved: Record<string, string | undefined> }>('remote traces in S3');
const BUCKET = 'flowgate-traces';

remote.before(async (context) => {
  context.gateway = await startVersityGateway();
  const { endpoint, region, accessKey, secretKey } = context.gateway;
  context.s3 = new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
  await context.s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  // The SDK's credential chain is how flowgate gets credentials; the environment is its first link.
  context.saved = { AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY };
  process.env.AWS_ACCESS_KEY_ID = accessKey;
  process.env.AWS_SECRET_ACCESS_KEY = secretKey;
  context.api = await startTestApi({ TRACE_S3_BUCKET: BUCKET, TRACE_S3_PREFIX: 'runs', S3_ENDPOINT: endpoint, S3_REGION: region });
});

remote.after(async (context) => {
  context.s3?.destroy();
  await context.api?.close();
  await context.gateway?.stop();
  for (const [name, value] of Object.entries(context.saved ?? {})) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

remote('a run writes its trace locally and to S3; the result names both; trace-log reads it inline', async ({ api }) => {
  const run = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 1 }, workflowId: uniqueId('s3') } });
  assert.is(run.body.status, 'completed');
  assert.match(run.body.trace.remote, new RegExp(`^s3://${BUCKET}/runs/arithmetic/\\d{4}/\\d{2}/\\d{2}/.+_${run.body.runId}\\.json$`));
  assert.ok((await stat(run.body.trace.local)).isFile());
  const legacy = await call(api, 'GET', `/workflow/${run.body.workflowId}/result?v=legacy`);
  assert.equal(legacy.body.trace, { destinations: run.body.trace });
  const log = await call(api, 'GET', `/workflow/${run.body.workflowId}/runs/${run.body.runId}/trace-log`);
  assert.is(log.status, 200);
  assert.is(log.body.source, 'remote');
  assert.is(log.body.data.runId, run.body.runId);
  assert.equal(log.body.data.steps.map((step: { name: string }) => step.name), ['add_one', 'double']);
});

remote('a corrupt S3 object: trace-log falls back to the local trace; without one, {source: "remote", runId} and no data', async ({ api, s3 }) => {
  for (const [what, body] of [['truncated', '{"workflowId": "x", "ste'], ['not a trace', '{"hello": "world"}']] as const) {
    const run = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 1 }, workflowId: uniqueId('s3-corrupt') } });
    const { remote: location, local } = run.body.trace;
    assert.ok(location && local, 'both destinations');
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: location.slice(`s3://${BUCKET}/`.length), Body: body, ContentType: 'application/json' }));
    const path = `/workflow/${run.body.workflowId}/runs/${run.body.runId}/trace-log`;
    const fallback = await call(api, 'GET', path);
    assert.is(fallback.status, 200, `${what}: ${JSON.stringify(fallback.body)}`);
    assert.is(fallback.body.source, 'local', `${what}: the readable local copy answers`);
    assert.is(fallback.body.localPath, local);
    assert.equal(fallback.body.data.steps.map((step: { name: string }) => step.name), ['add_one', 'double']);
    const warning = api.logs.find((line) => line.level === 'warn' && line.runId === run.body.runId && /corrupt trace/.test(line.msg));
    assert.ok(warning, `${what}: a warning names the run`);
    assert.is(warning!.location, location);

    await rm(local);
    const remoteOnly = await call(api, 'GET', path);
    assert.is(remoteOnly.status, 200, `${what} without a local copy: ${JSON.stringify(remoteOnly.body)}`);
    assert.equal(remoteOnly.body, { source: 'remote', runId: run.body.runId });
  }
});

remote('S3 down: the run still completes with its local trace; trace-log answers 503, then works again', async ({ api, gateway }) => {
  await gateway.pause();
  try {
    const run = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'offline' }, workflowId: uniqueId('s3-down') } });
    assert.is(run.body.status, 'completed');
    assert.ok(run.body.trace.local);
    assert.is(run.body.trace.remote, undefined, 'no remote destination when the upload failed');
    const log = await call(api, 'GET', `/workflow/${run.body.workflowId}/runs/${run.body.runId}/trace-log`);
    assert.is(log.status, 503);
    assert.is(log.body.error, 'TraceStoreUnavailableError');
    assert.ok(Number(log.headers['retry-after']) > 0);
  } finally {
    await gateway.start();
  }
  const again = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'back' } } });
  assert.ok(again.body.trace.remote);
});

remote.run();
