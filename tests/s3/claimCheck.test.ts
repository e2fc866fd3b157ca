// Large payloads (docs/large-payloads.md) over HTTP on the engine under test (FLOWGATE_TEST_ENGINE), with a real
// Versity S3 gateway. On Temporal this file starts its own STOCK dev server (4 MiB gRPC cap, the default 2 MiB
// per-payload limit), not the large-message build the other Temporal suites share: with S3 a 20 MiB result must pass
// through it as a claim check; without S3 the limit stays and its errors are clear. The embedded engine has no
// per-payload limit: the same requests simply pass, and nothing is offloaded.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { startTemporalDevServer, startVersityGateway, type TemporalDevServer, type VersityGateway } from '../../scripts/infra/index.mjs';
import { engineUnderTest, startTestApi, type TestApi } from '../support/engines.js';
import { expectError, expectStatus, historyEvents, http, wf } from '../support/contract.js';
import { uniqueId } from '../support/http.js';
import { startCallbackReceiver } from '../support/callbackReceiver.js';
import type { TestCatalog } from '../support/fixtureCatalogs.js';

const MIB = 1024 * 1024;
const BUCKET = 'flowgate-claim-checks';
const PREFIX = 'runs';
/** Over Temporal's 2 MiB per-payload limit and its 4 MiB gRPC cap, far under MAX_RESULT_BYTES. */
const BIG_RESULT_BYTES = 20 * MIB;
/** An input over Temporal's per-payload limit, under the MAX_BODY_BYTES these servers get. */
const BIG_INPUT_CHARS = 3 * MIB;
const BODY_CAP = { MAX_BODY_BYTES: String(8 * MIB) };
/** Temporal's stock per-payload limits (the shared test server raises them; adapters/temporal/devServer/devServerArgs.ts). */
const STOCK_BLOB_LIMITS = { 'limit.blobSize.error': 2 * MIB, 'limit.blobSize.warn': 512 * 1024 };

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/workflows/${name}`, import.meta.url));
const CATALOGS: TestCatalog[] = [{ catalog: 'main', modules: [fixture('basic.ts'), fixture('counting.ts')] }];

/** Read when a test runs: on Temporal, TEMPORAL_ADDRESS is this file's own server by then. */
const engine = (): string => engineUnderTest();

interface Infra {
  gateway: VersityGateway;
  temporal: TemporalDevServer | undefined;
  saved: Record<string, string | undefined>;
}

let infra: Infra | undefined;

/** One gateway and (on Temporal) one stock server for both suites of this file, stopped by the last suite. */
async function startInfra(): Promise<Infra> {
  const saved = {
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
    TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
    TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE,
  };
  const started: Infra = { gateway: undefined as unknown as VersityGateway, temporal: undefined, saved };
  infra = started;
  started.gateway = await startVersityGateway({ log: () => {} });
  const { accessKey, secretKey } = started.gateway;
  const admin = adminClient(started.gateway);
  await admin.send(new CreateBucketCommand({ Bucket: BUCKET }));
  admin.destroy();
  // The SDK's credential chain is how flowgate gets credentials; the environment is its first link.
  process.env.AWS_ACCESS_KEY_ID = accessKey;
  process.env.AWS_SECRET_ACCESS_KEY = secretKey;
  if (process.env.FLOWGATE_TEST_ENGINE === 'temporal') {
    started.temporal = await startTemporalDevServer({ largeMessages: false, dynamicConfig: STOCK_BLOB_LIMITS, log: () => {} });
    process.env.TEMPORAL_ADDRESS = started.temporal.address;
    process.env.TEMPORAL_NAMESPACE = started.temporal.namespace;
  }
  return started;
}

async function stopInfra(): Promise<void> {
  const current = infra;
  infra = undefined;
  if (!current) return;
  await current.temporal?.stop();
  await current.gateway?.stop();
  for (const [name, value] of Object.entries(current.saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

function adminClient(gateway: VersityGateway): S3Client {
  const { endpoint, region, accessKey, secretKey } = gateway;
  return new S3Client({ endpoint, region, forcePathStyle: true, credentials: { accessKeyId: accessKey, secretAccessKey: secretKey } });
}

async function claimCheckObjects(gateway: VersityGateway): Promise<{ key: string; size: number }[]> {
  const admin = adminClient(gateway);
  try {
    const listed = await admin.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: `${PREFIX}/.claim-checks/` }));
    return (listed.Contents ?? []).map((object) => ({ key: object.Key ?? '', size: object.Size ?? 0 }));
  } finally {
    admin.destroy();
  }
}

interface Context {
  api: TestApi;
  gateway: VersityGateway;
  startError?: unknown;
}

function largePayloadSuite(name: string, env: (gateway: VersityGateway) => Record<string, string>, last: boolean) {
  const test = suite<Context>(name, {} as Context);
  test.before(async (context) => {
    try {
      const current = infra ?? (await startInfra());
      context.gateway = current.gateway;
      context.api = await startTestApi({ ...BODY_CAP, ...env(current.gateway) }, { catalogs: CATALOGS });
    } catch (error) {
      context.startError = error;
    }
  });
  test.before.each((context) => {
    if (context.startError !== undefined) throw context.startError;
  });
  test.after(async (context) => {
    await context.api?.close();
    if (last) await stopInfra();
  });
  return test;
}

// ---- with S3: the claim check carries what the engine could not ----

const withS3 = largePayloadSuite(
  'large payloads with S3 (claim checks)',
  (gateway) => ({
    TRACE_S3_BUCKET: BUCKET,
    TRACE_S3_PREFIX: PREFIX,
    S3_ENDPOINT: gateway.endpoint,
    S3_REGION: gateway.region,
    // The callback receiver is on loopback, which outbound calls refuse unless the allow-list opens it.
    OUTBOUND_ALLOWLIST: '127.0.0.1',
  }),
  false,
);

withS3('a 20 MiB result passes unchanged, run-and-wait and the result endpoint alike; the same answer on both engines', async ({ api, gateway }) => {
  const workflowId = uniqueId('claim-check-result');
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'big_result', workflowId, input: { bytes: BIG_RESULT_BYTES }, timeout: 300 } });
  expectStatus(run, 200, 'run-and-wait');
  assert.is(run.body.status, 'completed');
  assert.is(run.body.error, null);
  assert.is(run.body.output.blob.length, BIG_RESULT_BYTES);
  assert.ok(/^x+$/.test(run.body.output.blob), 'the result is byte for byte what the step made');
  assert.equal(run.body.input, { bytes: BIG_RESULT_BYTES });

  const again = await http(api, 'GET', `${wf(workflowId, run.body.runId)}/result`);
  expectStatus(again, 200, 'result');
  assert.equal([again.body.status, again.body.output.blob.length], ['completed', BIG_RESULT_BYTES]);

  const stored = await claimCheckObjects(gateway);
  if (engine() === 'temporal') {
    // The step's result and the workflow's result: both over the threshold, both offloaded, content-addressed.
    assert.ok(stored.length >= 1, 'the result went to S3 as a claim check');
    assert.ok(stored.every((object) => /^runs\/\.claim-checks\/[0-9a-f]{64}$/.test(object.key)), JSON.stringify(stored.map((o) => o.key)));
    assert.ok(stored.some((object) => object.size > BIG_RESULT_BYTES), 'the whole payload is in the object');
  } else {
    // The embedded engine keeps values in memory: nothing to offload.
    assert.equal(stored, []);
  }
});

withS3('a run with a result over the threshold and a callbackUrl: the callback carries the whole result, as GET result answers it', async ({ api }) => {
  const receiver = await startCallbackReceiver();
  try {
    const path = `/ok/${uniqueId('claim-check-callback')}`;
    const workflowId = uniqueId('claim-check-callback');
    const bytes = 3 * MIB;
    const started = await http(api, 'POST', '/workflow', { json: { workflowName: 'big_result', workflowId, input: { bytes }, callbackUrl: receiver.url(path) } });
    expectStatus(started, 200, 'start');
    const [call] = await receiver.waitForCalls(path, 1, 120_000);
    const delivered = JSON.parse(call!.body);
    assert.is(delivered.status, 'completed', call!.body.slice(0, 300));
    assert.is(delivered.output.blob.length, bytes);
    const result = await http(api, 'GET', `${wf(workflowId, started.body.runId)}/result`);
    expectStatus(result, 200, 'result');
    assert.equal(delivered, result.body, 'the callback body is the run\'s v2 result');
  } finally {
    await receiver.close();
  }
});

withS3('an input over Temporal\'s payload limit passes too, and reads back from the input endpoint', async ({ api }) => {
  const message = 'm'.repeat(BIG_INPUT_CHARS);
  const workflowId = uniqueId('claim-check-input');
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId, input: { message }, timeout: 120 } });
  expectStatus(run, 200, 'run-and-wait');
  assert.is(run.body.status, 'completed');
  assert.ok(run.body.output.message === message, 'the echoed input is identical');
  const input = await http(api, 'GET', `${wf(workflowId, run.body.runId)}/input`);
  expectStatus(input, 200, 'input');
  assert.ok(input.body.input.message === message);
  // History pages read Temporal's events directly: the values in them are resolved from S3 too. Every page: one
  // holds at most HISTORY_PAGE_MAX_BYTES, so an event this large is a page of its own.
  const events = await historyEvents(api, workflowId, run.body.runId);
  const eventOf = (type: string) => events.find((event: { type: string }) => event.type === type);
  assert.ok(eventOf('step_completed')?.attributes.output.message === message, 'the step result in history');
  assert.ok(eventOf('workflow_completed')?.attributes.output.message === message, 'the run result in history');
});

withS3('S3 unreachable: a large input or result is 503 TraceStoreUnavailableError with Retry-After on Temporal, nothing started; small runs are untouched', async ({ api, gateway }) => {
  const earlier = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'e'.repeat(BIG_INPUT_CHARS) }, timeout: 120 } });
  assert.is(earlier.body.status, 'completed');
  await gateway.pause();
  try {
    const result = await http(api, 'GET', `${wf(earlier.body.workflowId, earlier.body.runId)}/result`);
    if (engine() === 'temporal') {
      // The result is in S3 and S3 cannot answer: a retryable 503, not a 500 or a hang.
      expectError(result, 503, 'TraceStoreUnavailableError', { maybeWorkflowId: earlier.body.workflowId });
      assert.ok(Number(result.headers['retry-after']) > 0);
    } else {
      expectStatus(result, 200, 'result');
    }
    const workflowId = uniqueId('claim-check-down');
    const large = await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', workflowId, input: { message: 'd'.repeat(BIG_INPUT_CHARS) } } });
    if (engine() === 'temporal') {
      expectError(large, 503, 'TraceStoreUnavailableError', { workflowId: null });
      assert.ok(Number(large.headers['retry-after']) > 0);
      expectStatus(await http(api, 'GET', `${wf(workflowId)}/status`), 404, 'nothing was started');
    } else {
      // No claim check on the embedded engine, so no S3 call: the start is accepted.
      expectStatus(large, 200, 'start');
    }
    const small = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'small' } } });
    expectStatus(small, 200, 'a small run');
    assert.is(small.body.status, 'completed');
  } finally {
    await gateway.start();
  }
});

withS3('S3 unreachable on the worker: a step whose large result cannot be stored fails the run by name after its retries (Temporal); the embedded engine completes', async ({ api, gateway }) => {
  await gateway.pause();
  try {
    const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'big_result', input: { bytes: BIG_INPUT_CHARS }, timeout: 120 } });
    expectStatus(run, 200, 'run-and-wait');
    if (engine() === 'temporal') {
      assert.is(run.body.status, 'failed');
      assert.is(run.body.error.name, 'TraceStoreUnavailableError');
      assert.match(run.body.error.message, /storing claim-check object s3:\/\/flowgate-claim-checks\/runs\/\.claim-checks\/[0-9a-f]{64} failed/);
    } else {
      assert.is(run.body.status, 'completed');
      assert.is(run.body.output.blob.length, BIG_INPUT_CHARS);
    }
  } finally {
    await gateway.start();
  }
});

withS3.run();

// ---- without S3: Temporal's limit stays, and says so ----

const withoutS3 = largePayloadSuite(
  'large payloads without S3',
  () => ({ TEMPORAL_MAX_PAYLOAD_BYTES: '2000000' }),
  true,
);

withoutS3('an input over the engine\'s payload limit: 413 PayloadTooLargeError on Temporal, nothing started; accepted by the embedded engine', async ({ api }) => {
  const workflowId = uniqueId('no-claim-check-input');
  const input = { message: 'n'.repeat(BIG_INPUT_CHARS) };
  for (const path of ['/workflow', '/workflow/run']) {
    const response = await http(api, 'POST', path, { json: { workflowName: 'echo', workflowId: `${workflowId}${path.length}`, input } });
    if (engine() === 'temporal') {
      expectError(response, 413, 'PayloadTooLargeError', { workflowId: null });
      assert.match(response.body.message, /TEMPORAL_MAX_PAYLOAD_BYTES/);
      expectStatus(await http(api, 'GET', `${wf(`${workflowId}${path.length}`)}/status`), 404, 'nothing was started');
    } else {
      expectStatus(response, 200, path);
    }
  }
});

withoutS3('a 20 MiB result: a failed run with ResultTooLargeError on Temporal (no hang, no gRPC error); completed on the embedded engine', async ({ api }) => {
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'big_result', input: { bytes: BIG_RESULT_BYTES }, timeout: 120 } });
  expectStatus(run, 200, 'run-and-wait');
  if (engine() === 'temporal') {
    assert.is(run.body.status, 'failed');
    assert.is(run.body.error.name, 'ResultTooLargeError');
    assert.match(run.body.error.message, /more than the 2000000 bytes Temporal takes per payload \(TEMPORAL_MAX_PAYLOAD_BYTES\)/);
    assert.is(run.body.output, null);
  } else {
    assert.is(run.body.status, 'completed');
    assert.is(run.body.output.blob.length, BIG_RESULT_BYTES);
  }
});

withoutS3('a step input over the limit: a failed run with PayloadTooLargeError naming the step on Temporal (not a run the server terminates); completed on the embedded engine', async ({ api }) => {
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'big_step_input', input: { bytes: 3_000_000 }, timeout: 120 } });
  expectStatus(run, 200, 'run-and-wait');
  if (engine() === 'temporal') {
    assert.is(run.body.status, 'failed', JSON.stringify(run.body.error));
    assert.is(run.body.error.name, 'PayloadTooLargeError');
    assert.match(run.body.error.message, /^The input of step big_step_input#blob_length is 3000002 bytes of JSON, more than the 2000000 bytes Temporal takes per payload/);
  } else {
    assert.is(run.body.status, 'completed');
    assert.equal(run.body.output, { length: 3_000_000 });
  }
});

withoutS3('a result under the limit passes as before', async ({ api }) => {
  const run = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'big_result', input: { bytes: 1_000_000 }, timeout: 120 } });
  expectStatus(run, 200, 'run-and-wait');
  assert.is(run.body.status, 'completed');
  assert.is(run.body.output.blob.length, 1_000_000);
});

withoutS3.run();
