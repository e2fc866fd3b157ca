import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { isAbsolute, join, sep } from 'node:path';
import { startFlowgateServer, type FlowgateServer } from '../../composition/server.js';
import { PinoLogger } from '../../adapters/log/index.js';
import { startTestApi, type TestApi } from '../support/engines.js';
import { call, uniqueId, waitForEvent, waitForStatus } from '../support/http.js';

/**
 * The API and the workers on two hosts, as far as traces go: each has its own TRACE_DIR. The workers write the
 * traces; the API learns each file's path with the run (FLOWGATE_TEST_ENGINE=temporal).
 */
const hosts = suite<{ api: TestApi; apiTraceDir: string; sameDirApi: FlowgateServer }>('a worker on another host');

hosts.before(async (context) => {
  context.apiTraceDir = await mkdtemp(join(tmpdir(), 'flowgate-api-traces-'));
  // The workers write under api.traceDir; the API server itself is given another directory.
  context.api = await startTestApi({ TRACE_DIR: context.apiTraceDir });
  // A second API server on the same Temporal whose TRACE_DIR is the workers' (one host, or a shared volume).
  context.sameDirApi = await startFlowgateServer({
    env: { HOST: '127.0.0.1', PORT: '0', ENGINE: 'temporal', TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, TRACE_DIR: context.api.traceDir, DEFAULT_CATALOG: 'main' },
    logger: new PinoLogger({ level: 'silent' }),
  });
});

hosts.after(async (context) => {
  await context.sameDirApi?.close();
  await context.api?.close();
  if (context.apiTraceDir) await rm(context.apiTraceDir, { recursive: true, force: true });
});

hosts('the result names the trace file the worker wrote; trace-log answers its localPath, without data the API cannot read', async ({ api, apiTraceDir }) => {
  const workerTraceDir = api.traceDir;
  assert.is.not(workerTraceDir, apiTraceDir);
  const run = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 1 }, workflowId: uniqueId('hosts') } });
  assert.is(run.status, 200);
  assert.is(run.body.status, 'completed');
  const local: string = run.body.trace.local;
  assert.ok(local, `the result has trace.local: ${JSON.stringify(run.body.trace)}`);
  assert.ok(isAbsolute(local));
  assert.ok(local.startsWith(join(workerTraceDir, 'arithmetic') + sep), `${local} is under the worker's TRACE_DIR`);
  assert.ok(local.endsWith(`_${run.body.runId}.json`));
  assert.ok((await stat(local)).isFile(), 'the worker wrote it there');
  assert.equal(await readdir(apiTraceDir), [], 'the API wrote nothing of its own');

  const { workflowId, runId } = run.body;
  const result = await call(api, 'GET', `/workflow/${workflowId}/runs/${runId}/result`);
  assert.equal(result.body.trace, { local });
  const legacy = await call(api, 'GET', `/workflow/${workflowId}/result?v=legacy`);
  assert.equal(legacy.body.trace, { destinations: { local } });
  const log = await call(api, 'GET', `/workflow/${workflowId}/runs/${runId}/trace-log`);
  assert.is(log.status, 200);
  assert.equal(log.body, { source: 'local', runId, localPath: local }, 'no data: the file is outside the API\'s TRACE_DIR');
});

hosts('with the worker\'s TRACE_DIR, the API names the same file and trace-log carries its data', async ({ api, sameDirApi }) => {
  const run = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', input: { n: 2 }, workflowId: uniqueId('hosts-same') } });
  const { workflowId, runId } = run.body;
  const same = { baseUrl: sameDirApi.url };
  const result = await call(same, 'GET', `/workflow/${workflowId}/runs/${runId}/result`);
  assert.equal(result.body.trace, { local: run.body.trace.local });
  const log = await call(same, 'GET', `/workflow/${workflowId}/runs/${runId}/trace-log`);
  assert.is(log.status, 200);
  assert.is(log.body.localPath, run.body.trace.local);
  assert.equal(log.body.data.steps.map((step: { name: string }) => step.name), ['add_one', 'double']);
  assert.equal(log.body.data.output, { result: 6 });
});

hosts('failed, stopped and continued runs carry their own path; a terminated run, which wrote none, has no trace.local', async ({ api }) => {
  const failed = await call(api, 'POST', '/workflow/run', { json: { workflowName: 'fails_in_step', input: { reason: 'r' }, workflowId: uniqueId('hosts-failed') } });
  assert.is(failed.body.status, 'failed');
  assert.ok((await stat(failed.body.trace.local)).isFile());

  const stopped = uniqueId('hosts-stopped');
  await call(api, 'POST', '/workflow', { json: { workflowName: 'cleans_up_on_stop', input: {}, workflowId: stopped } });
  await waitForEvent(api, stopped, 'timer_started');
  assert.is((await call(api, 'PATCH', `/workflow/${stopped}/stop`)).status, 200);
  await waitForStatus(api, `/workflow/${stopped}/status`, (status) => status === 'cancelled');
  const cancelled = await call(api, 'GET', `/workflow/${stopped}/result`);
  assert.ok((await stat(cancelled.body.trace.local)).isFile(), 'a cancelled run names its trace');

  const chain = uniqueId('hosts-chain');
  const first = await call(api, 'POST', '/workflow', { json: { workflowName: 'countdown', input: { n: 1 }, workflowId: chain } });
  await waitForStatus(api, `/workflow/${chain}/status`, (status) => status === 'completed');
  const firstResult = await call(api, 'GET', `/workflow/${chain}/runs/${first.body.runId}/result`);
  const lastResult = await call(api, 'GET', `/workflow/${chain}/result`);
  assert.ok(firstResult.body.trace.local.endsWith(`_${first.body.runId}.json`), 'the continued run names its own file');
  assert.ok(lastResult.body.trace.local.endsWith(`_${lastResult.body.runId}.json`), 'the next run of the chain names its own file, not the one before');
  assert.ok((await stat(lastResult.body.trace.local)).isFile());

  const terminated = uniqueId('hosts-terminated');
  const started = await call(api, 'POST', '/workflow', { json: { workflowName: 'awaits_feedback', input: {}, workflowId: terminated } });
  assert.is((await call(api, 'POST', `/workflow/${terminated}/runs/${started.body.runId}/terminate`, { json: {} })).status, 200);
  const result = await call(api, 'GET', `/workflow/${terminated}/result`);
  assert.equal(result.body.trace, {});
  const log = await call(api, 'GET', `/workflow/${terminated}/runs/${started.body.runId}/trace-log`);
  assert.is(log.status, 404);
  assert.is(log.body.error, 'TraceNotFoundError');
});

hosts.run();
