import * as assert from 'uvu/assert';
import { uniqueId, type TestResponse } from '../support/http.js';
import { contractSuite, expectError, expectStatus, http, wf } from '../support/contract.js';
import { eventually } from '../support/eventually.js';
import { TestKeyFile, testKey } from '../support/keyFiles.js';

/*
 * API keys with scopes and limits (docs/security.md), over HTTP: a read-only dashboard key, a CI key that may only
 * start `echo` in `main`, an operator key with control, an operator limited to one workflow, an expired key, and
 * API_AUTH_TOKEN beside them as the key with every scope.
 */
const TOKEN = 'contract-keys-admin-t0ken';
const ADMIN = { authorization: `Bearer ${TOKEN}` };
const dashboard = testKey('dashboard', ['read']);
const ci = testKey('ci', ['start', 'read'], { catalogs: ['main'], workflows: ['echo'] });
const operator = testKey('operator', ['read', 'control']);
const feedbackOperator = testKey('feedback-operator', ['read', 'control'], { workflows: ['awaits_feedback'] });
const expired = testKey('expired', ['admin'], { expiresAt: '2020-01-01T00:00:00Z' });
const keyFile = new TestKeyFile([dashboard, ci, operator, feedbackOperator, expired]);

const test = contractSuite('API keys', { API_AUTH_TOKEN: TOKEN, API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

async function startAs(api: Parameters<typeof http>[0], headers: Record<string, string>, workflowName: string, input: unknown, catalog?: string) {
  const workflowId = uniqueId(`keys-${workflowName}`);
  const response = await http(api, 'POST', '/workflow', { json: { workflowName, workflowId, input, ...(catalog ? { catalog } : {}) }, headers });
  return { response, workflowId, runId: response.body.runId as string };
}

function expectForbidden(response: TestResponse, scopeOrLimit: RegExp, what: string): void {
  expectError(response, 403, 'ForbiddenError', { workflowId: null });
  assert.match(response.body.message, scopeOrLimit, what);
}

test('the dashboard key reads everything and changes nothing: 403 naming the scope', async ({ api }) => {
  const run = await startAs(api, ADMIN, 'awaits_feedback', {});
  expectStatus(run.response, 200);
  const h = { headers: dashboard.headers };
  expectStatus(await http(api, 'GET', '/workflow/list', h), 200);
  expectStatus(await http(api, 'GET', '/workflow/list?catalog=other', h), 200);
  expectStatus(await http(api, 'GET', '/workflow/runs?workflowName=awaits_feedback', h), 200);
  expectStatus(await http(api, 'GET', `${wf(run.workflowId, run.runId)}/status`, h), 200);
  expectStatus(await http(api, 'GET', `${wf(run.workflowId)}/history`, h), 200);
  const pinned = wf(run.workflowId, run.runId);
  expectForbidden(await http(api, 'POST', '/workflow', { json: { workflowName: 'echo', input: { message: 'x' } }, ...h }), /"start" scope/, 'start');
  expectForbidden(await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'x' } }, ...h }), /"start" scope/, 'run');
  expectForbidden(await http(api, 'POST', `${pinned}/rerun`, { json: {}, ...h }), /"start" scope/, 'rerun');
  expectForbidden(await http(api, 'POST', `${pinned}/terminate`, { json: {}, ...h }), /"control" scope/, 'terminate');
  expectForbidden(await http(api, 'PATCH', `${pinned}/stop`, h), /"control" scope/, 'stop');
  expectForbidden(await http(api, 'POST', `${pinned}/reset`, { json: { stepName: 'x' }, ...h }), /"control" scope/, 'reset');
  expectForbidden(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: {} }, ...h }), /"control" scope/, 'feedback');
  expectForbidden(await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'awaits_feedback', dryRun: true }, ...h }), /"control" scope/, 'bulk');
  expectForbidden(await http(api, 'GET', '/metrics', h), /"admin" scope/, 'metrics');
  const status = await http(api, 'GET', `${pinned}/status`, h);
  assert.is(status.body.status, 'running', 'nothing reached the run');
  expectStatus(await http(api, 'POST', `${pinned}/terminate`, { json: {}, headers: ADMIN }), 200);
});

test('the CI key starts only echo in main, and sees only its runs: 403 to start others, 404 for their runs', async ({ api }) => {
  const h = { headers: ci.headers };
  const own = await startAs(api, ci.headers, 'echo', { message: 'ci' });
  expectStatus(own.response, 200);
  expectStatus(await http(api, 'POST', '/workflow/run', { json: { workflowName: 'echo', catalog: 'main', input: { message: 'ci' } }, ...h }), 200);
  expectForbidden((await startAs(api, ci.headers, 'sleeper', { ms: 1 })).response, /may not use workflow "sleeper" of catalog "main"/, 'another workflow');
  expectForbidden((await startAs(api, ci.headers, 'other_only', {}, 'other')).response, /catalog "other"/, 'another catalog');
  // Listing: main's echo only; another catalog is refused.
  const list = await http(api, 'GET', '/workflow/list', h);
  expectStatus(list, 200);
  assert.equal(list.body.workflows.map((workflow: { name: string }) => workflow.name), ['echo']);
  expectForbidden(await http(api, 'GET', '/workflow/list?catalog=other', h), /catalog "other"/, 'list another catalog');

  const hidden = await startAs(api, ADMIN, 'awaits_feedback', {});
  const hiddenOther = await startAs(api, ADMIN, 'other_only', {}, 'other');
  expectStatus(hidden.response, 200);
  expectStatus(hiddenOther.response, 200);
  for (const run of [hidden, hiddenOther]) {
    for (const path of [`${wf(run.workflowId, run.runId)}/status`, `${wf(run.workflowId)}/status`, `${wf(run.workflowId, run.runId)}/result`, `${wf(run.workflowId)}/input`, `${wf(run.workflowId, run.runId)}/history`]) {
      const response = await http(api, 'GET', path, h);
      expectError(response, 404, 'WorkflowNotFoundError', { maybeWorkflowId: run.workflowId });
      // Worded as a run that does not exist: nothing tells the key the run is there.
      const missing = await http(api, 'GET', path.replace(run.workflowId, `${run.workflowId}-absent`), { headers: ADMIN });
      assert.is(response.body.message.replace(run.workflowId, 'ID'), missing.body.message.replace(`${run.workflowId}-absent`, 'ID'), path);
    }
    expectError(await http(api, 'POST', `${wf(run.workflowId, run.runId)}/rerun`, { json: {}, ...h }), 404, 'WorkflowNotFoundError', { maybeWorkflowId: run.workflowId });
  }
  expectStatus(await http(api, 'GET', `${wf(own.workflowId, own.runId)}/status`, h), 200);
  const rerun = await http(api, 'POST', `${wf(own.workflowId, own.runId)}/rerun`, { json: {}, ...h });
  expectStatus(rerun, 200);
  expectForbidden(await http(api, 'POST', `${wf(own.workflowId, own.runId)}/terminate`, { json: {}, ...h }), /"control" scope/, 'terminate');

  // Runs lists: only echo runs of main, whatever the filter asks. Temporal's list may show the key's own run a moment
  // after its start (its visibility store lags): asked until it does.
  const runs = await eventually('the CI key\'s run list to show its own run', async () => {
    const listed = await http(api, 'GET', '/workflow/runs?limit=100', h);
    expectStatus(listed, 200);
    return listed.body.runs.some((run: { workflowId: string }) => run.workflowId === own.workflowId) && listed;
  });
  assert.ok(runs.body.runs.length > 0);
  for (const run of runs.body.runs) assert.equal([run.catalog, run.workflowName], ['main', 'echo']);
  assert.ok(runs.body.runs.some((run: { workflowId: string }) => run.workflowId === own.workflowId));
  assert.equal((await http(api, 'GET', '/workflow/runs?workflowName=awaits_feedback', h)).body.runs, []);
  assert.equal((await http(api, 'GET', '/workflow/runs?catalog=other', h)).body.runs, []);
  // A filter outside the key's limits has no pages, so no token of its own: one given is forged or another's.
  const adminToken = (await http(api, 'GET', '/workflow/runs?workflowName=awaits_feedback&limit=1', { headers: ADMIN })).body.nextPageToken;
  for (const pageToken of ['garbage', ...(adminToken ? [adminToken] : [])]) {
    const refused = await http(api, 'GET', `/workflow/runs?workflowName=awaits_feedback&pageToken=${pageToken}`, h);
    expectError(refused, 400, 'ValidationError');
    assert.is(refused.body.message, 'pageToken is invalid or stale');
  }
  expectStatus(await http(api, 'POST', `${wf(hidden.workflowId, hidden.runId)}/terminate`, { json: {}, headers: ADMIN }), 200);
});

test('the operator key controls runs and starts none', async ({ api }) => {
  const h = { headers: operator.headers };
  expectForbidden((await startAs(api, operator.headers, 'awaits_feedback', {})).response, /"start" scope/, 'start');
  const run = await startAs(api, ADMIN, 'awaits_feedback', {});
  await http(api, 'GET', `${wf(run.workflowId, run.runId)}/status`, h);
  const fed = await http(api, 'POST', '/workflow/feedback', { json: { workflowId: run.workflowId, payload: { ok: true } }, ...h });
  expectStatus(fed, 200);
  const stopped = await startAs(api, ADMIN, 'awaits_feedback', {});
  expectStatus(await http(api, 'PATCH', `${wf(stopped.workflowId, stopped.runId)}/stop`, h), 200);
  const terminated = await startAs(api, ADMIN, 'awaits_feedback', {});
  expectStatus(await http(api, 'POST', `${wf(terminated.workflowId, terminated.runId)}/terminate`, { json: {}, ...h }), 200);
  expectForbidden(await http(api, 'GET', '/metrics', h), /"admin" scope/, 'metrics');
});

test('a key limited to a workflow: bulk operations act on, count and list exactly its runs', async ({ api }) => {
  const h = { headers: feedbackOperator.headers };
  const mine = [await startAs(api, ADMIN, 'awaits_feedback', {}), await startAs(api, ADMIN, 'awaits_feedback', {})];
  const notMine = await startAs(api, ADMIN, 'step_then_waits', { n: 1 });
  for (const run of [...mine, notMine]) expectStatus(run.response, 200);
  // The run list is eventually consistent on Temporal: wait until the admin sees all three before the key lists.
  await eventually('the admin\'s run list to show all three runs', async () => {
    const listedByAdmin = await http(api, 'POST', '/workflow/runs/rerun', { json: { status: 'running', dryRun: true }, headers: ADMIN });
    const seen = new Set(listedByAdmin.body.runs.map((run: { workflowId: string }) => run.workflowId));
    return [...mine, notMine].every((run) => seen.has(run.workflowId));
  });
  // Listed and counted by two visibility queries: a run of an earlier test that closed meanwhile can leave the later
  // one, so the pair is asked again until they agree (a count with another workflow's run in it never would).
  await eventually('the dry run to count exactly the runs the key lists', async () => {
    const listed = await http(api, 'POST', '/workflow/runs/rerun', { json: { status: 'running', dryRun: true }, ...h });
    expectStatus(listed, 200);
    const ids = listed.body.runs.map((run: { workflowId: string }) => run.workflowId);
    for (const run of mine) assert.ok(ids.includes(run.workflowId), 'its runs are listed');
    assert.not.ok(ids.includes(notMine.workflowId), 'another workflow\'s run is not');
    const dryRun = await http(api, 'POST', '/workflow/runs/terminate', { json: { status: 'running', dryRun: true }, ...h });
    expectStatus(dryRun, 200);
    return dryRun.body.matched === ids.length;
  });
  assert.is((await http(api, 'POST', '/workflow/runs/terminate', { json: { workflowName: 'step_then_waits', dryRun: true }, ...h })).body.matched, 0);
  const done = await http(api, 'POST', '/workflow/runs/terminate', { json: { status: 'running', reason: 'limited bulk' }, ...h });
  expectStatus(done, 200);
  for (const run of mine) assert.is((await http(api, 'GET', `${wf(run.workflowId, run.runId)}/status`, { headers: ADMIN })).body.status, 'terminated');
  assert.is((await http(api, 'GET', `${wf(notMine.workflowId, notMine.runId)}/status`, { headers: ADMIN })).body.status, 'running', 'untouched');
  expectError(await http(api, 'POST', `${wf(notMine.workflowId, notMine.runId)}/terminate`, { json: {}, ...h }), 404, 'WorkflowNotFoundError', { maybeWorkflowId: notMine.workflowId });
  expectStatus(await http(api, 'POST', `${wf(notMine.workflowId, notMine.runId)}/terminate`, { json: {}, headers: ADMIN }), 200);
});

test("an Idempotency-Key is the sending key's own: the same value from another key starts that key's own run and learns nothing of the first", async ({ api }) => {
  const idempotencyKey = uniqueId('one-value');
  const keyed = (headers: Record<string, string>) => ({ ...headers, 'idempotency-key': idempotencyKey });
  const body = { workflowName: 'echo', input: { message: 'from the admin' } };
  const admins = await http(api, 'POST', '/workflow', { json: body, headers: keyed(ADMIN) });
  expectStatus(admins, 200);
  // The same body, then another one, from the CI key: its own run each time it is new to it, never the admin's.
  const cis = await http(api, 'POST', '/workflow', { json: body, headers: keyed(ci.headers) });
  expectStatus(cis, 200);
  assert.is.not(cis.body.workflowId, admins.body.workflowId, "not the admin's run");
  const retried = await http(api, 'POST', '/workflow', { json: body, headers: keyed(ci.headers) });
  assert.equal([retried.status, retried.body.runId], [200, cis.body.runId], "the CI key's retry gets the CI key's run");
  const reused = await http(api, 'POST', '/workflow', { json: { ...body, input: { message: 'another' } }, headers: keyed(ci.headers) });
  expectError(reused, 409, 'IdempotencyKeyReusedError', { workflowId: cis.body.workflowId });

  // Feedback: one value, two keys, two runs.
  const mine = await startAs(api, ADMIN, 'awaits_feedback', {});
  const theirs = await startAs(api, ADMIN, 'awaits_feedback', {});
  const fed = await http(api, 'POST', '/workflow/feedback', { json: { workflowId: mine.workflowId, payload: { by: 'operator' } }, headers: keyed(operator.headers) });
  expectStatus(fed, 200);
  const other = await http(api, 'POST', '/workflow/feedback', { json: { workflowId: theirs.workflowId, payload: { by: 'feedback-operator' } }, headers: keyed(feedbackOperator.headers) });
  expectStatus(other, 200);
  await eventually('both runs to complete with their own feedback', async () => {
    const statuses = await Promise.all([mine, theirs].map((run) => http(api, 'GET', `${wf(run.workflowId, run.runId)}/status`, { headers: ADMIN })));
    return statuses.every((status) => status.body.status === 'completed');
  });
});

test('401: an expired key, an unknown key, two tokens, a token with whitespace; API_AUTH_TOKEN has every scope', async ({ api }) => {
  const headers = [
    expired.headers,
    { authorization: 'Bearer fgk_not-a-key' },
    { authorization: `Bearer ${dashboard.secret} ${operator.secret}` },
    { authorization: `Bearer ${dashboard.secret.slice(0, 8)} ${dashboard.secret.slice(8)}` },
    { authorization: `Bearer ${dashboard.secret.slice(0, 8)}\t${dashboard.secret.slice(8)}` },
    { authorization: `Bearer ${dashboard.secret}x` },
  ];
  for (const header of headers) {
    const response = await http(api, 'GET', '/workflow/runs', { headers: header });
    expectError(response, 401, 'UnauthorizedError', { workflowId: null });
  }
  expectStatus(await http(api, 'GET', '/metrics', { headers: ADMIN }), 200);
  // The access log names the key, never a secret.
  const lines = api.logs.filter((line) => line.msg === 'http request' && line.key !== undefined);
  assert.ok(lines.some((line) => line.key === 'dashboard'));
  assert.ok(lines.some((line) => line.key === 'token'));
  const text = JSON.stringify(api.logs);
  for (const key of [dashboard, ci, operator, feedbackOperator, expired]) assert.not.ok(text.includes(key.secret), `${key.entry.id}'s secret is not logged`);
});

test.run();
