import * as assert from 'uvu/assert';
import { randomUUID } from 'node:crypto';
import { uniqueId } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectIssueAt,
  expectNothingStarted,
  expectStatus,
  http,
  keys,
  listAllRuns,
  runAndWait,
  start,
  STATUS_VIEW_KEYS,
  statusOf,
  UUID,
  waitUntil,
  wf,
  type Started,
} from '../support/contract.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';

/** POST /workflow/{id}/runs/{rid}/rerun and POST /workflow/runs/rerun. */
const test = contractSuite('rerun');

const rerunPath = (run: Started): string => `${wf(run.workflowId, run.runId)}/rerun`;
const ref = (run: Started): Started => ({ workflowId: run.workflowId, runId: run.runId });

/** Polls the run list (eventually consistent on Temporal) until `done` holds for what it lists. */
async function listedUntil(api: TestApi, query: Record<string, string>, done: (runs: any[]) => boolean, what: string): Promise<any[]> {
  return eventually(`the run list to show ${what}`, async () => {
    const runs = await listAllRuns(api, query);
    return done(runs) ? runs : undefined;
  });
}

const listsAll = (runs: Started[]) => (listed: any[]) => runs.every((run) => listed.some((entry) => entry.runId === run.runId));

/** Ends the open runs of rerun_waits (this suite's own workflow), so a later run of the suite finds none of them. */
async function endOpenWaits(api: TestApi): Promise<void> {
  expectStatus(await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'rerun_waits', status: 'running', reason: 'rerun suite clean-up' } }), 200);
}

test('a rerun starts a new run of the same workflow with the same input, and the new run records the run it repeats', async ({ api }) => {
  const originalId = uniqueId('rerun-echo');
  const original = await runAndWait(api, { workflowName: 'echo', workflowId: originalId, input: { message: 'once more' } });
  const response = await http(api, 'POST', rerunPath(original));
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['rerunOf', 'runId', 'status', 'workflowId']);
  assert.is(response.body.status, 'running');
  assert.match(response.body.runId, UUID);
  assert.is.not(response.body.workflowId, originalId, 'a new workflow id is generated');
  assert.equal(response.body.rerunOf, ref(original));

  const rerun: Started = { workflowId: response.body.workflowId, runId: response.body.runId };
  const done = await waitUntil(api, rerun.workflowId, 'completed', rerun.runId);
  assert.equal(keys(done), [...STATUS_VIEW_KEYS, 'rerunOf'].sort());
  assert.equal(done.rerunOf, ref(original));
  assert.is(done.workflowName, 'echo');
  assert.is(done.catalog, 'main');
  const result = await http(api, 'GET', `${wf(rerun.workflowId, rerun.runId)}/result`);
  assert.equal(result.body.input, { message: 'once more' });
  assert.equal(result.body.output, { message: 'once more' });
  const history = await http(api, 'GET', `${wf(rerun.workflowId, rerun.runId)}/history`);
  assert.equal(history.body.workflow.rerunOf, ref(original), 'the history metadata says it too');
  // The original is untouched and records nothing; an empty JSON body is the same as none.
  const originalStatus = await statusOf(api, originalId);
  assert.equal(keys(originalStatus.body), STATUS_VIEW_KEYS);
  assert.is(originalStatus.body.runId, original.runId);
  const again = await http(api, 'POST', rerunPath(original), { json: {} });
  expectStatus(again, 200);
  assert.is.not(again.body.workflowId, rerun.workflowId);

  // The run list shows it too.
  const listed = await listedUntil(api, { workflowName: 'echo' }, listsAll([rerun, original]), 'the rerun and the original');
  assert.equal(listed.find((entry) => entry.runId === rerun.runId).rerunOf, ref(original));
  assert.not.ok('rerunOf' in listed.find((entry) => entry.runId === original.runId), 'a run no rerun started has no rerunOf');
});

test("a continued run is rerun with its own input, under the workflowId given; callbackUrl is checked as a start's", async ({ api }) => {
  const first = await start(api, 'countdown', { n: 2 }, uniqueId('rerun-chain'));
  const last = await waitUntil(api, first.workflowId, 'completed');
  const middle = (await listedUntil(api, { workflowName: 'countdown' }, (runs) => runs.filter((run) => run.workflowId === first.workflowId).length === 3, 'the chain'))
    .find((run) => run.workflowId === first.workflowId && run.runId !== first.runId && run.runId !== last.runId);
  const workflowId = uniqueId('rerun-chain-new');
  const response = await http(api, 'POST', rerunPath(middle), { json: { workflowId } });
  expectStatus(response, 200);
  assert.is(response.body.workflowId, workflowId);
  const input = await http(api, 'GET', `${wf(workflowId, response.body.runId)}/input`);
  assert.equal(input.body.input, { n: 1 }, 'the continued run\'s own input');
  await waitUntil(api, workflowId, 'completed');
  // The runs its chain continues into say what the chain repeats.
  const latest = (await statusOf(api, workflowId)).body;
  assert.is.not(latest.runId, response.body.runId);
  assert.equal(latest.rerunOf, ref(middle));

  const bad = uniqueId('rerun-bad-callback');
  const refused = await http(api, 'POST', rerunPath(middle), { json: { workflowId: bad, callbackUrl: 'ftp://example.test/x' } });
  expectError(refused, 400, 'ValidationError');
  expectIssueAt(refused, 'callbackUrl');
  await expectNothingStarted(api, bad, 'countdown');
});

test('any JSON input POST /workflow/run took, null and an array included, is rerun as it was', async ({ api }) => {
  for (const input of [null, [1, 'two', { three: 3 }], 'text']) {
    const original = await runAndWait(api, { workflowName: 'any_input', workflowId: uniqueId('rerun-any'), input });
    const rerun = await http(api, 'POST', rerunPath(original));
    expectStatus(rerun, 200, JSON.stringify(input));
    await waitUntil(api, rerun.body.workflowId, 'completed');
    const result = await http(api, 'GET', `${wf(rerun.body.workflowId)}/result`);
    assert.equal(result.body.input, input);
    assert.equal(result.body.output, input);
  }
});

test('a reset of a rerun keeps what it repeats: the new run of the reset says rerunOf too', async ({ api }) => {
  const original = await runAndWait(api, { workflowName: 'arithmetic', workflowId: uniqueId('rerun-reset'), input: { n: 4 } });
  const workflowId = uniqueId('rerun-reset-new');
  const rerun = await http(api, 'POST', rerunPath(original), { json: { workflowId } });
  expectStatus(rerun, 200);
  await waitUntil(api, workflowId, 'completed');
  const reset = await http(api, 'POST', `${wf(workflowId, rerun.body.runId)}/reset`, { json: { stepName: 'add_one' } });
  expectStatus(reset, 200);
  const done = await waitUntil(api, workflowId, 'completed', reset.body.runId);
  assert.equal(done.rerunOf, ref(original));
});

test("the original's own id while it is open: 409 and nothing started; another id: a second open run; once closed, the id is reused", async ({ api }) => {
  const original = await start(api, 'rerun_waits', { tag: 'open' }, uniqueId('rerun-open'));
  const refused = await http(api, 'POST', rerunPath(original), { json: { workflowId: original.workflowId } });
  expectError(refused, 409, 'WorkflowAlreadyStartedError', { workflowId: original.workflowId });
  assert.is((await statusOf(api, original.workflowId)).body.runId, original.runId, 'no run started under the id');

  const otherId = uniqueId('rerun-open-other');
  const other = await http(api, 'POST', rerunPath(original), { json: { workflowId: otherId } });
  expectStatus(other, 200);
  assert.is(other.body.workflowId, otherId);
  const otherStatus = (await statusOf(api, otherId)).body;
  assert.is(otherStatus.status, 'running');
  assert.equal(otherStatus.rerunOf, ref(original));
  assert.is((await statusOf(api, original.workflowId)).body.status, 'running', 'the original keeps running');

  for (const workflowId of [original.workflowId, otherId]) {
    expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { go: true } } }), 200);
    await waitUntil(api, workflowId, 'completed');
  }
  const reused = await http(api, 'POST', rerunPath(original), { json: { workflowId: original.workflowId } });
  expectStatus(reused, 200);
  assert.is(reused.body.workflowId, original.workflowId);
  const latest = (await statusOf(api, original.workflowId)).body;
  assert.is(latest.runId, reused.body.runId, 'the new run is the id\'s latest run');
  assert.equal(latest.rerunOf, ref(original));
  const input = await http(api, 'GET', `${wf(original.workflowId, reused.body.runId)}/input`);
  assert.equal(input.body.input, { tag: 'open' });
  await endOpenWaits(api);
});

test('an unknown run: 404; a run id that is not a UUID or an unknown field: 400; nothing started', async ({ api }) => {
  const { workflowId, runId } = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('rerun-404'), input: { message: 'x' } });
  const unknownId = uniqueId('rerun-nobody');
  expectError(await http(api, 'POST', `${wf(unknownId, randomUUID())}/rerun`, { json: {} }), 404, 'WorkflowNotFoundError', { maybeWorkflowId: unknownId });
  const fresh = uniqueId('rerun-404-new');
  expectError(await http(api, 'POST', `${wf(workflowId, randomUUID())}/rerun`, { json: { workflowId: fresh } }), 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
  await expectNothingStarted(api, fresh, 'echo');

  const notUuid = await http(api, 'POST', `${wf(workflowId)}/runs/not-a-uuid/rerun`, { json: { workflowId: fresh } });
  expectError(notUuid, 400, 'ValidationError');
  const unknownField = await http(api, 'POST', rerunPath({ workflowId, runId }), { json: { workflowId: fresh, input: { message: 'y' } } });
  expectError(unknownField, 400, 'ValidationError');
  expectIssueAt(unknownField, 'input');
  await expectNothingStarted(api, fresh, 'echo');
});

test("a run whose catalog has no worker now answers as a start would: 503 CatalogNotAvailableError with Retry-After, nothing started", async ({ api }) => {
  await api.startWorker('idle');
  let original: any;
  try {
    original = await runAndWait(api, { workflowName: 'idle_only', catalog: 'idle', workflowId: uniqueId('rerun-idle'), input: {} });
  } finally {
    await api.stopWorker('idle');
  }
  const workflowId = uniqueId('rerun-idle-new');
  const response = await http(api, 'POST', rerunPath(original), { json: { workflowId } });
  expectError(response, 503, 'CatalogNotAvailableError', { maybeWorkflowId: workflowId });
  assert.match(response.headers['retry-after'] ?? '', /^[1-9]\d*$/, 'Retry-After in seconds');
  await expectNothingStarted(api, workflowId, 'idle_only');
});

test("an input the workflow's schema no longer accepts: 400 ValidationError with issues, nothing started", async ({ api }) => {
  const first = await start(api, 'continues_with_retired_input', { round: 1 }, uniqueId('rerun-retired'));
  const last = await waitUntil(api, first.workflowId, 'failed');
  assert.is.not(last.runId, first.runId);
  const workflowId = uniqueId('rerun-retired-new');
  const response = await http(api, 'POST', rerunPath(last), { json: { workflowId } });
  expectError(response, 400, 'ValidationError');
  expectIssueAt(response, 'round');
  await expectNothingStarted(api, workflowId, 'continues_with_retired_input');
  // The chain's first run, whose input still matches, is rerun.
  expectStatus(await http(api, 'POST', rerunPath(first), { json: { workflowId } }), 200);
});

test('a keyed rerun is started once: a retry gets the same new run and expiry; the key on another run is 409 and starts nothing', async ({ api }) => {
  const original = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('rerun-keyed'), input: { message: 'keyed' } });
  const other = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('rerun-keyed-other'), input: { message: 'keyed' } });
  const headers = { 'idempotency-key': `rerun-${randomUUID()}` };
  const first = await http(api, 'POST', rerunPath(original), { headers });
  expectStatus(first, 200);
  assert.ok(first.headers['idempotency-expires'], 'a keyed rerun says until when its answer is kept');
  const retries = await Promise.all([1, 2, 3].map(() => http(api, 'POST', rerunPath(original), { headers })));
  for (const retry of retries) {
    expectStatus(retry, 200);
    assert.equal(retry.body, first.body, 'every retry answers the first rerun');
    assert.is(retry.headers['idempotency-expires'], first.headers['idempotency-expires']);
  }
  const done = await waitUntil(api, first.body.workflowId, 'completed', first.body.runId);
  assert.equal(done.rerunOf, ref(original));
  const runsOfTheId = (await listedUntil(api, { workflowName: 'echo' }, (runs) => runs.some((run) => run.runId === first.body.runId), 'the keyed rerun'))
    .filter((run) => run.workflowId === first.body.workflowId);
  assert.is(runsOfTheId.length, 1, 'one run under the id the key derived');

  // The same key with the same input, but another run to repeat, is another request.
  const reused = await http(api, 'POST', rerunPath(other), { headers });
  expectError(reused, 409, 'IdempotencyKeyReusedError', { workflowId: first.body.workflowId });
  const after = await listedUntil(api, { workflowName: 'echo' }, (runs) => runs.some((run) => run.runId === first.body.runId), 'the keyed rerun');
  assert.not.ok(after.some((run) => run.rerunOf?.runId === other.runId), 'nothing repeats the other run');
});

test('bulk: a dry run lists the matching runs and starts nothing; the real one reruns each under a new id', async ({ api }) => {
  await endOpenWaits(api);
  const prefix = uniqueId('rerun-bulk');
  const originals = await Promise.all([0, 1, 2].map((index) => start(api, 'rerun_waits', { tag: `${prefix}-${index}` }, `${prefix}-${index}`)));
  const filter = { workflowName: 'rerun_waits', status: 'running' };
  const before = await listedUntil(api, filter, listsAll(originals), 'the started runs');

  const dry = await http(api, 'POST', '/workflow/runs/rerun', { json: { ...filter, dryRun: true } });
  expectStatus(dry, 200);
  assert.equal(keys(dry.body), ['action', 'dryRun', 'failures', 'matched', 'runs', 'started', 'succeeded', 'truncated']);
  assert.is(dry.body.action, 'rerun');
  assert.is(dry.body.dryRun, true);
  assert.is(dry.body.succeeded, 0);
  assert.equal(dry.body.started, []);
  assert.is(dry.body.matched, dry.body.runs.length);
  for (const run of originals) assert.ok(dry.body.runs.some((listed: Started) => listed.runId === run.runId), `${run.workflowId} would be rerun`);
  // Nothing new in the run list: no open run that was not open before, no run repeating one of ours.
  const listedBefore = new Set(before.map((run) => run.runId));
  const after = await listAllRuns(api, { workflowName: 'rerun_waits' });
  for (const run of after) {
    if (run.status === 'running') assert.ok(listedBefore.has(run.runId), `the dry run started nothing (${run.workflowId})`);
    assert.not.ok(originals.some((original) => original.runId === run.rerunOf?.runId), `no rerun of ours (${run.workflowId})`);
  }

  const response = await http(api, 'POST', '/workflow/runs/rerun', { json: filter });
  expectStatus(response, 200);
  const body = response.body;
  assert.is(body.dryRun, false);
  assert.is(body.truncated, false);
  assert.equal(body.failures, []);
  assert.is(body.succeeded, body.matched);
  assert.is(body.started.length, body.matched);
  for (const run of originals) {
    const rerun = body.started.find((started: any) => started.rerunOf.runId === run.runId);
    assert.ok(rerun, `${run.workflowId} was rerun`);
    assert.equal(rerun.rerunOf, ref(run));
    assert.is.not(rerun.workflowId, run.workflowId);
    const status = (await statusOf(api, rerun.workflowId, rerun.runId)).body;
    assert.is(status.status, 'running');
    assert.equal(status.rerunOf, ref(run));
    const input = await http(api, 'GET', `${wf(rerun.workflowId, rerun.runId)}/input`);
    assert.equal(input.body.input, (await http(api, 'GET', `${wf(run.workflowId, run.runId)}/input`)).body.input);
  }
  // The run list shows the new runs with what they repeat (so the dry run's empty list above was no blind spot).
  await listedUntil(api, { workflowName: 'rerun_waits' }, (runs) => originals.every((original) => runs.some((run) => run.rerunOf?.runId === original.runId)), 'the reruns');
  await endOpenWaits(api);
});

test("bulk: a run that cannot be rerun is a failure of its own, with the error a single rerun answers", async ({ api }) => {
  const first = await start(api, 'continues_with_retired_input', { round: 1 }, uniqueId('rerun-bulk-retired'));
  const last = await waitUntil(api, first.workflowId, 'failed');
  // Failed runs of this workflow are its continued ones, with the input its schema refuses (a first run fails only
  // where a worker without this workflow took it, as on a Temporal server shared with other checkouts).
  const filter = { workflowName: 'continues_with_retired_input', status: 'failed' };
  await listedUntil(api, filter, listsAll([last]), 'the failed run');
  const response = await http(api, 'POST', '/workflow/runs/rerun', { json: filter });
  expectStatus(response, 200);
  const body = response.body;
  assert.is(body.succeeded, body.started.length);
  assert.is(body.succeeded + body.failures.length, body.matched, 'each matched run is rerun or reported');
  const failure = body.failures.find((entry: any) => entry.runId === last.runId);
  assert.ok(failure, 'the run is reported');
  assert.equal(keys(failure), ['error', 'message', 'runId', 'workflowId']);
  assert.is(failure.error, 'ValidationError');
  assert.is(failure.workflowId, first.workflowId);
  assert.not.ok(body.started.some((started: any) => started.rerunOf.runId === last.runId), 'nothing started for it');
  const listed = await listAllRuns(api, { workflowName: 'continues_with_retired_input' });
  assert.not.ok(listed.some((run) => run.rerunOf?.runId === last.runId), 'no run repeats it');
});

test('bulk: no filter, an unknown field or a bad status is 400, like the other bulk endpoints, and nothing starts', async ({ api }) => {
  const counts = async () => Promise.all(['rerun_waits', 'echo'].map(async (workflowName) => (await listAllRuns(api, { workflowName })).length));
  const before = await counts();
  for (const [json, field] of [
    [{}, undefined],
    [{ dryRun: false }, undefined],
    [{ status: 'sleeping' }, 'status'],
    [{ workflowName: 'rerun_waits', reason: 'x' }, 'reason'],
  ] as const) {
    const response = await http(api, 'POST', '/workflow/runs/rerun', { json });
    expectError(response, 400, 'ValidationError');
    if (field) expectIssueAt(response, field);
  }
  assert.equal(await counts(), before, 'nothing started');
});

test.run();
