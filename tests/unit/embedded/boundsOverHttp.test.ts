import * as assert from 'uvu/assert';
import { uniqueId } from '../../support/http.js';
import { contractSuite, expectError, expectStatus, http, runsOfId, runAndWait, statusOf, waitUntil, wf } from '../../support/contract.js';

/*
 * The embedded engine's memory limits as a client sees them, over HTTP (docs/reliability.md): closed runs are
 * evicted by MEMORY_MAX_CLOSED_BYTES as by MEMORY_MAX_CLOSED_RUNS, and eviction keeps what it must (a key until it
 * expires, a chain's original input). The history cap is a contract test on both engines
 * (tests/contract/historyLimit.test.ts).
 */

const closedBytes = contractSuite('MEMORY_MAX_CLOSED_BYTES over HTTP', { MEMORY_MAX_CLOSED_BYTES: String(4_000_000) }, { engine: 'memory' });

closedBytes('old runs are evicted by their bytes; the newer ones stay readable in full', async ({ api }) => {
  const runs: { workflowId: string; runId: string }[] = [];
  for (let index = 0; index < 8; index += 1) {
    const input = { index, blob: 'y'.repeat(900_000) };
    const result = await runAndWait(api, { workflowName: 'any_input', workflowId: uniqueId(`closed-bytes-${index}`), input });
    assert.is(result.status, 'completed');
    runs.push(result);
  }
  // Each run keeps its 900 kB once (input, step input and output, result): four fit in 4 MB, a fifth does not.
  for (const run of runs.slice(0, 4)) expectError(await statusOf(api, run.workflowId), 404, 'WorkflowNotFoundError', { workflowId: run.workflowId });
  for (const [offset, run] of runs.slice(4).entries()) {
    expectStatus(await statusOf(api, run.workflowId), 200);
    const result = await http(api, 'GET', `${wf(run.workflowId, run.runId)}/result`);
    assert.equal(result.body.output, { index: offset + 4, blob: 'y'.repeat(900_000) });
    const input = await http(api, 'GET', `${wf(run.workflowId)}/input`);
    assert.is(input.body.input.blob.length, 900_000);
  }
});

closedBytes.run();

const fewRuns = contractSuite('MEMORY_MAX_CLOSED_RUNS=3 over HTTP', { MEMORY_MAX_CLOSED_RUNS: '3' }, { engine: 'memory' });
const withKey = (key: string, json: unknown) => ({ json, headers: { 'idempotency-key': key } });

fewRuns('a keyed start and a keyed run-and-wait retried after their runs were evicted get their first answers; nothing starts twice', async ({ api }) => {
  const startRequest = withKey(uniqueId('evicted-start'), { workflowName: 'echo', input: { message: 'started once' } });
  const runRequest = withKey(uniqueId('evicted-run'), { workflowName: 'echo', input: { message: 'ran once' } });
  const started = await http(api, 'POST', '/workflow', startRequest);
  expectStatus(started, 200);
  await waitUntil(api, started.body.workflowId, 'completed');
  const ran = await http(api, 'POST', '/workflow/run', runRequest);
  expectStatus(ran, 200);
  for (let index = 0; index < 5; index += 1) await runAndWait(api, { workflowName: 'echo', input: { message: `other ${index}` } });
  assert.equal(await runsOfId(api, 'echo', started.body.workflowId), [], 'the keyed start\'s run was evicted');
  assert.equal(await runsOfId(api, 'echo', ran.body.workflowId), [], 'the keyed run-and-wait\'s run was evicted');

  const startedAgain = await http(api, 'POST', '/workflow', startRequest);
  expectStatus(startedAgain, 200);
  assert.equal(startedAgain.body, started.body, 'the same start response');
  assert.is(startedAgain.headers['idempotency-expires'], started.headers['idempotency-expires']);
  const ranAgain = await http(api, 'POST', '/workflow/run', runRequest);
  expectStatus(ranAgain, 200);
  assert.equal(ranAgain.body, ran.body, 'the same result');
  assert.is(ranAgain.headers['idempotency-expires'], ran.headers['idempotency-expires']);
  const reused = await http(api, 'POST', '/workflow', { ...startRequest, json: { workflowName: 'echo', input: { message: 'another body' } } });
  expectError(reused, 409, 'IdempotencyKeyReusedError', { workflowId: started.body.workflowId });
  assert.equal(await runsOfId(api, 'echo', started.body.workflowId), [], 'no second run of the keyed start');
  assert.equal(await runsOfId(api, 'echo', ran.body.workflowId), [], 'no second run of the keyed run-and-wait');
});

fewRuns('the original input of a continue-as-new chain stays readable after its first run was evicted', async ({ api }) => {
  const workflowId = uniqueId('evicted-chain');
  const result = await runAndWait(api, { workflowName: 'countdown', workflowId, input: { n: 5 } });
  assert.is(result.status, 'completed');
  const kept = await runsOfId(api, 'countdown', workflowId);
  assert.is(kept.length, 3, 'six runs, the three oldest evicted');
  const input = await http(api, 'GET', `${wf(workflowId)}/input`);
  expectStatus(input, 200);
  assert.equal(input.body.input, { n: 5 });
  assert.not.ok(kept.some((run) => run.runId === input.body.runId), 'the input of the first run, which is gone');
  const latest = await http(api, 'GET', `${wf(workflowId)}/result`);
  assert.equal(latest.body.input, { n: 5 }, 'the result shows the chain\'s original input');
});

fewRuns.run();

const fewKeys = contractSuite('MEMORY_MAX_IDEMPOTENCY_BYTES over HTTP', { MEMORY_MAX_IDEMPOTENCY_BYTES: '1500' }, { engine: 'memory' });

fewKeys('when the key records are full, a new keyed start is 503 IdempotencyStoreFullError with Retry-After; nothing else is refused', async ({ api }) => {
  const firstRequest = withKey(uniqueId('full-1'), { workflowName: 'echo', input: { message: 'one' } });
  const first = await http(api, 'POST', '/workflow', firstRequest);
  expectStatus(first, 200);
  const refused = await http(api, 'POST', '/workflow', withKey(uniqueId('full-2'), { workflowName: 'echo', input: { message: 'two' } }));
  expectError(refused, 503, 'IdempotencyStoreFullError', { maybeWorkflowId: refused.body.workflowId });
  assert.match(refused.body.message, /MEMORY_MAX_IDEMPOTENCY_BYTES/);
  const retryAfter = Number(refused.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 86_400, `Retry-After ${refused.headers['retry-after']}: when the oldest key expires`);
  assert.equal(await runsOfId(api, 'echo', refused.body.workflowId), [], 'nothing started');

  const retried = await http(api, 'POST', '/workflow', firstRequest);
  assert.equal([retried.status, retried.body], [200, first.body], 'a retry of a kept key is answered');
  expectStatus(await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', input: { message: 'no key' } } }), 200, 'a start without a key');
});

fewKeys.run();
