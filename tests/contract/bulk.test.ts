import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectIssueAt, expectStatus, http, listAllRuns, start, statusOf, waitUntil } from '../support/contract.js';
import { eventually } from '../support/eventually.js';

/** POST /workflow/runs/terminate and /workflow/runs/cancel: control by filter (issue 9). */
const test = contractSuite('bulk terminate and cancel');

/** Waits until the run list (eventually consistent on Temporal) shows every one of these runs as running. */
async function listedAsRunning(api: Parameters<typeof listAllRuns>[0], workflowName: string, runIds: Set<string>): Promise<void> {
  await eventually('the run list to show every started run', async () => {
    const listed = new Set((await listAllRuns(api, { workflowName, status: 'running' })).map((run) => run.runId));
    return [...runIds].every((runId) => listed.has(runId));
  });
}

test('a bulk terminate of 50 runs, one of them already closed: 49 terminated, the closed one counted and untouched', async ({ api }) => {
  const prefix = uniqueId('bulk');
  const started = await Promise.all(Array.from({ length: 50 }, (_, index) => start(api, 'awaits_feedback', {}, `${prefix}-${index}`)));
  await listedAsRunning(api, 'awaits_feedback', new Set(started.map((run) => run.runId)));
  const closed = started[7]!;
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: closed.workflowId, payload: { early: true } } }), 200);
  await waitUntil(api, closed.workflowId, 'completed');
  // The bulk terminate counts a run as closed by what the run list says, which may show the close a moment late.
  await eventually('the run list to show the early run as completed', async () =>
    (await listAllRuns(api, { workflowName: 'awaits_feedback', status: 'completed' })).some((run) => run.runId === closed.runId),
  );

  const dryRun = await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'awaits_feedback', dryRun: true } });
  expectStatus(dryRun, 200);
  assert.is(dryRun.body.dryRun, true);
  assert.ok(dryRun.body.matched >= 50, `the dry run counts at least the 50 (${dryRun.body.matched})`);
  assert.is(dryRun.body.succeeded, 0);
  for (const run of started) assert.is((await statusOf(api, run.workflowId)).body.status, run === closed ? 'completed' : 'running', 'a dry run acts on nothing');

  // No status filter: closed runs match too, and each is answered as a single terminate would be.
  const response = await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'awaits_feedback', reason: 'bulk clean-up' } });
  expectStatus(response, 200);
  const body = response.body;
  assert.is(body.action, 'terminate');
  assert.is(body.truncated, false);
  assert.is(body.succeeded + body.failures.length + body.alreadyClosed, body.matched);
  assert.ok(body.alreadyClosed >= 1, 'the closed run (and older closed runs of the workflow) matched, not acted on');
  const failed = new Map(body.failures.map((failure: any) => [failure.runId, failure]));
  // A run that closes between the listing and the terminate is a per-run failure, never a failed call.
  for (const failure of body.failures) assert.is(failure.error, 'WorkflowClosedError', JSON.stringify(failure));
  for (const run of started) {
    if (run === closed) continue;
    assert.not.ok(failed.has(run.runId), `${run.workflowId} was terminated`);
    assert.is((await statusOf(api, run.workflowId)).body.status, 'terminated');
  }
  assert.is((await statusOf(api, closed.workflowId)).body.status, 'completed', 'the closed run is untouched');
});

test('a bulk cancel by workflow name and status: every open run of that workflow is cancelled', async ({ api }) => {
  const prefix = uniqueId('bulk-cancel');
  const started = await Promise.all(Array.from({ length: 5 }, (_, index) => start(api, 'awaits_feedback', {}, `${prefix}-${index}`)));
  await listedAsRunning(api, 'awaits_feedback', new Set(started.map((run) => run.runId)));
  const response = await http(api, 'POST', '/workflow/runs/cancel', { json: { workflowName: 'awaits_feedback', status: 'running' } });
  expectStatus(response, 200);
  assert.is(response.body.action, 'cancel');
  assert.ok(response.body.succeeded >= 5);
  for (const run of started) await waitUntil(api, run.workflowId, 'cancelled');
});

test('no filter, an unknown field, a reason on cancel or a bad status: 400, and nothing is touched', async ({ api }) => {
  const { workflowId } = await start(api, 'awaits_feedback', {}, uniqueId('bulk-bad'));
  for (const [path, json, field] of [
    ['/workflow/runs/terminate', {}, undefined],
    ['/workflow/runs/terminate', { dryRun: false }, undefined],
    ['/workflow/runs/cancel', { workflowName: 'awaits_feedback', reason: 'x' }, 'reason'],
    ['/workflow/runs/terminate', { status: 'sleeping' }, 'status'],
    ['/workflow/runs/terminate', { workflowName: 'awaits_feedback', everything: true }, 'everything'],
  ] as const) {
    const response = await http(api, 'POST', path, { json });
    expectError(response, 400, 'ValidationError');
    if (field) expectIssueAt(response, field);
  }
  assert.is((await statusOf(api, workflowId)).body.status, 'running');
  expectStatus(await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'awaits_feedback', status: 'running' } }), 200);
});

test.run();
