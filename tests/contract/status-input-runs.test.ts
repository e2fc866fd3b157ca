import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import type { TestApi } from '../support/engines.js';
import { eventually } from '../support/eventually.js';
import {
  contractSuite,
  enc,
  expectError,
  expectStatus,
  http,
  ISO_UTC,
  keys,
  listAllRuns,
  runAndWait,
  start,
  STATUS_VIEW_KEYS,
  statusOf,
  UUID,
  waitUntil,
  wf,
} from '../support/contract.js';

/** GET /workflow/{id}/status, /workflow/{id}/input (and pinned forms), GET /workflow/runs. */
const test = contractSuite('status, input and the run list');

/**
 * Every echo run the run list shows, once it shows these ones: Temporal's list may show a run a moment after it
 * closed (its visibility store lags), and a test of paging needs its runs among the pages.
 */
async function echoRunsOnceListed(api: TestApi, runs: { workflowId: string }[]): Promise<any[]> {
  return eventually('the run list to show the echo runs just run', async () => {
    const listed = await listAllRuns(api, { workflowName: 'echo' });
    return runs.every(({ workflowId }) => listed.some((run) => run.workflowId === workflowId)) && listed;
  });
}

test('status of an open run: exactly the status keys, running, closedAt null', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('st-open'));
  for (const response of [await statusOf(api, workflowId), await statusOf(api, workflowId, runId)]) {
    expectStatus(response, 200);
    assert.equal(keys(response.body), STATUS_VIEW_KEYS);
    assert.is(response.body.workflowId, workflowId);
    assert.is(response.body.runId, runId);
    assert.is(response.body.workflowName, 'awaits_feedback');
    assert.is(response.body.catalog, 'main');
    assert.is(response.body.status, 'running');
    assert.match(response.body.startedAt, ISO_UTC);
    assert.is(response.body.closedAt, null);
  }
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
});

test('status of a closed run: terminal status, closedAt ISO 8601 UTC and not before startedAt', async ({ api }) => {
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('st-closed'), input: { message: 'x' } });
  const response = await statusOf(api, run.workflowId, run.runId);
  expectStatus(response, 200);
  assert.equal(keys(response.body), STATUS_VIEW_KEYS);
  assert.is(response.body.status, 'completed');
  assert.match(response.body.closedAt, ISO_UTC);
  assert.ok(Date.parse(response.body.closedAt) >= Date.parse(response.body.startedAt));
});

test('status: unknown id 404, unknown run 404, run id not a UUID 400', async ({ api }) => {
  const missing = uniqueId('st-missing');
  expectError(await statusOf(api, missing), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
  const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('st-known'), input: { message: 'x' } });
  const otherRun = '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
  expectError(await statusOf(api, run.workflowId, otherRun), 404, 'WorkflowNotFoundError', { maybeWorkflowId: run.workflowId });
  expectError(await statusOf(api, run.workflowId, '12345'), 400, 'ValidationError', { maybeWorkflowId: run.workflowId });
  // A run id of another workflow id is not a run of this one.
  const other = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId('st-other'), input: { message: 'y' } });
  for (const path of [`${wf(run.workflowId, other.runId)}/status`, `${wf(run.workflowId, other.runId)}/result`, `${wf(run.workflowId, other.runId)}/history`]) {
    expectError(await http(api, 'GET', path), 404, 'WorkflowNotFoundError', { maybeWorkflowId: run.workflowId });
  }
});

test('input: the id form gives the first run input of a continue-as-new chain; pinned forms their own', async ({ api }) => {
  const { workflowId, runId: firstRunId } = await start(api, 'countdown', { n: 2 }, uniqueId('in-chain'));
  const last = await waitUntil(api, workflowId, 'completed');
  assert.is.not(last.runId, firstRunId, 'the chain has more than one run');

  const original = await http(api, 'GET', `${wf(workflowId)}/input`);
  expectStatus(original, 200);
  assert.equal(keys(original.body), ['input', 'runId', 'workflowId']);
  assert.equal(original.body, { workflowId, runId: firstRunId, input: { n: 2 } });

  const pinnedFirst = await http(api, 'GET', `${wf(workflowId, firstRunId)}/input`);
  expectStatus(pinnedFirst, 200);
  assert.equal(pinnedFirst.body, { workflowId, runId: firstRunId, input: { n: 2 } });

  const pinnedLast = await http(api, 'GET', `${wf(workflowId, last.runId)}/input`);
  expectStatus(pinnedLast, 200);
  assert.equal(pinnedLast.body, { workflowId, runId: last.runId, input: { n: 0 } });

  const missing = uniqueId('in-missing');
  expectError(await http(api, 'GET', `${wf(missing)}/input`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: missing });
});

test('run list: exactly {runs, nextPageToken}; items are status views; newest first', async ({ api }) => {
  const workflowName = 'arithmetic';
  const ids = [uniqueId('rl-a'), uniqueId('rl-b'), uniqueId('rl-c')];
  for (const workflowId of ids) await runAndWait(api, { workflowName, workflowId, input: { n: 1 } });
  // Temporal's list may show a run a moment after it closed (its visibility store lags): asked until it shows the three.
  const response = await eventually('the run list to show the three runs', async () => {
    const answer = await http(api, 'GET', `/workflow/runs?workflowName=${workflowName}`);
    expectStatus(answer, 200);
    return ids.every((workflowId) => answer.body.runs.some((run: { workflowId: string }) => run.workflowId === workflowId)) && answer;
  });
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['nextPageToken', 'runs']);
  for (const run of response.body.runs) {
    // Other suites' runs of the workflow are listed too (one Temporal server serves them all); a rerun says what it
    // repeats, and a run an API key started names it.
    if ('rerunOf' in run) assert.equal(keys(run.rerunOf), ['runId', 'workflowId']);
    if ('startedBy' in run) assert.type(run.startedBy, 'string');
    assert.equal(keys(run).filter((key) => key !== 'rerunOf' && key !== 'startedBy'), STATUS_VIEW_KEYS);
    assert.is(run.workflowName, workflowName);
  }
  for (const run of response.body.runs.filter((entry: { workflowId: string }) => ids.includes(entry.workflowId))) {
    assert.equal(keys(run), STATUS_VIEW_KEYS, 'a run no rerun and no API key started has exactly the status view keys');
  }
  const ours = response.body.runs.filter((run: { workflowId: string }) => ids.includes(run.workflowId));
  assert.equal(ours.map((run: { workflowId: string }) => run.workflowId), [...ids].reverse(), 'newest first');
  const starts = response.body.runs.map((run: { startedAt: string }) => Date.parse(run.startedAt));
  for (let index = 1; index < starts.length; index++) assert.ok(starts[index - 1] >= starts[index], 'sorted by start, newest first');
});

test('run list filters: workflowName, catalog and status (with the old "continued" alias)', async ({ api }) => {
  // Temporal's list reads its visibility store, which may show a run a moment after its start or close (seen in CI
  // under load): what the list must come to show is asked with eventually(); what it must never show is asserted.
  const listed = (query: Record<string, string>, what: string, shows: (runs: any[]) => boolean) =>
    eventually(what, async () => {
      const runs = await listAllRuns(api, query);
      return shows(runs) && runs;
    });
  const otherId = uniqueId('rl-other');
  await runAndWait(api, { workflowName: 'other_only', catalog: 'other', workflowId: otherId, input: {} });
  const inOther = await listed({ catalog: 'other' }, 'the other catalog\'s run', (runs) => runs.some((run) => run.workflowId === otherId));
  assert.ok(inOther.every((run) => run.catalog === 'other'), 'catalog filter');
  assert.ok((await listAllRuns(api, { catalog: 'main' })).every((run) => run.catalog === 'main'));

  const chainId = uniqueId('rl-chain');
  const { runId: firstRunId } = await start(api, 'countdown', { n: 1 }, chainId);
  await waitUntil(api, chainId, 'completed');
  const isFirstOfChain = (run: any) => run.workflowId === chainId && run.runId === firstRunId;
  const continued = await listed({ status: 'continued_as_new' }, 'the chain\'s first run, continued', (runs) => runs.some(isFirstOfChain));
  assert.ok(continued.every((run) => run.status === 'continued_as_new'));
  // Other suites share the server and may continue runs between the two lists: the alias's list holds the first.
  const alias = await listAllRuns(api, { status: 'continued' });
  assert.ok(alias.every((run) => run.status === 'continued_as_new'), 'responses say continued_as_new');
  const aliasIds = new Set(alias.map((run) => run.runId));
  assert.ok(continued.every((run) => aliasIds.has(run.runId)), 'status=continued is the same filter');

  const completed = await listed({ status: 'completed', workflowName: 'countdown' }, 'the chain, completed', (runs) => runs.some((run) => run.workflowId === chainId));
  assert.ok(completed.every((run) => run.status === 'completed' && run.workflowName === 'countdown'));

  const running = await start(api, 'awaits_feedback', {}, uniqueId('rl-running'));
  const open = await listed({ status: 'running' }, 'the open run', (runs) => runs.some((run) => run.workflowId === running.workflowId));
  assert.ok(open.some((run) => run.workflowId === running.workflowId && run.closedAt === null));
  assert.ok(open.every((run) => run.status === 'running'));
  expectStatus(await http(api, 'POST', `${wf(running.workflowId, running.runId)}/terminate`, { json: {} }), 200);

  expectError(await http(api, 'GET', '/workflow/runs?status=continued_as_old'), 400, 'ValidationError');
  expectError(await http(api, 'GET', '/workflow/runs?status=running&status=completed'), 400, 'ValidationError');
});

test('run list limit: 1 and 1000 accepted, 0, 1001 and non-numbers refused', async ({ api }) => {
  const a = await runAndWait(api, { workflowName: 'echo', input: { message: 'a' } });
  const b = await runAndWait(api, { workflowName: 'echo', input: { message: 'b' } });
  await echoRunsOnceListed(api, [a, b]);
  const one = await http(api, 'GET', '/workflow/runs?limit=1');
  expectStatus(one, 200);
  assert.is(one.body.runs.length, 1);
  assert.type(one.body.nextPageToken, 'string', 'more runs exist, so there is a next page');
  expectStatus(await http(api, 'GET', '/workflow/runs?limit=1000'), 200);
  for (const limit of ['0', '1001', '-1', 'ten', '2.5', '']) {
    expectError(await http(api, 'GET', `/workflow/runs?limit=${limit}`), 400, 'ValidationError');
  }
});

test('run list: limit defaults to 100; an unknown workflowName lists nothing', async ({ api }) => {
  // Started, not run and waited for: 101 run-and-waits at once outlast their timeout on a loaded machine, and the list
  // counts runs whatever their state. The list may lag the starts (Temporal's visibility), hence eventually().
  await Promise.all(Array.from({ length: 101 }, (_, index) => start(api, 'any_input', { index })));
  const page = await eventually('a page of 100 any_input runs', async () => {
    const answer = await http(api, 'GET', '/workflow/runs?workflowName=any_input');
    expectStatus(answer, 200);
    return answer.body.runs.length === 100 && answer;
  });
  assert.is(page.body.runs.length, 100);
  assert.type(page.body.nextPageToken, 'string');
  const none = await http(api, 'GET', '/workflow/runs?workflowName=never_registered');
  expectStatus(none, 200);
  assert.equal(none.body, { runs: [], nextPageToken: null });
  // A NUL in a filter (Temporal's SQL visibility store failed on it: 503 before) matches no run either.
  for (const query of ['workflowName=any%00input', 'catalog=main%00', 'catalog=%00&workflowName=%00&status=completed']) {
    const nul = await http(api, 'GET', `/workflow/runs?${query}`);
    expectStatus(nul, 200, query);
    assert.equal(nul.body, { runs: [], nextPageToken: null }, query);
  }
});

test('run list paging: every run exactly once over the pages, in order, then a null token', async ({ api }) => {
  const ids: string[] = [];
  for (let index = 0; index < 5; index++) {
    const run = await runAndWait(api, { workflowName: 'echo', workflowId: uniqueId(`pg-${index}`), input: { message: `${index}` } });
    ids.push(run.workflowId);
  }
  const all = await echoRunsOnceListed(api, ids.map((workflowId) => ({ workflowId })));
  const seen: any[] = [];
  let pageToken: string | null = null;
  let pages = 0;
  do {
    const query: string = `/workflow/runs?workflowName=echo&limit=2${pageToken ? `&pageToken=${enc(pageToken)}` : ''}`;
    const page: any = await http(api, 'GET', query);
    expectStatus(page, 200);
    assert.ok(page.body.runs.length <= 2, 'a page holds at most limit runs');
    seen.push(...page.body.runs);
    pageToken = page.body.nextPageToken;
    pages += 1;
    // The shared Temporal server keeps the runs of every suite before this one (other Node versions too).
    assert.ok(pages <= Math.ceil(all.length / 2) + 1, 'paging ends');
  } while (pageToken);
  assert.equal(seen.map((run) => run.runId), all.map((run) => run.runId), 'pages concatenate to the full list');
  assert.is(new Set(seen.map((run) => run.runId)).size, seen.length, 'no run twice');
  for (const workflowId of ids) assert.ok(seen.some((run) => run.workflowId === workflowId), `${workflowId} listed`);
  assert.ok(pages >= 3, '5+ runs over pages of 2');
});

test('run list: a forged, garbled or stale pageToken is 400', async ({ api }) => {
  const a = await runAndWait(api, { workflowName: 'echo', input: { message: 'a' } });
  const b = await runAndWait(api, { workflowName: 'echo', input: { message: 'b' } });
  await echoRunsOnceListed(api, [a, b]);
  const first = await http(api, 'GET', '/workflow/runs?workflowName=echo&limit=1');
  const token: string = first.body.nextPageToken;
  assert.type(token, 'string');
  const middle = Math.floor(token.length / 2);
  const flipped = token.slice(0, middle) + (token[middle] === 'A' ? 'B' : 'A') + token.slice(middle + 1);
  const forged = Buffer.from(JSON.stringify({ offset: 1 })).toString('base64url');
  for (const bad of ['garbage', forged, flipped, `${token}x`]) {
    const response = await http(api, 'GET', `/workflow/runs?workflowName=echo&limit=1&pageToken=${enc(bad)}`);
    expectError(response, 400, 'ValidationError');
  }
  // The token of one query replayed against another filter.
  const stale = await http(api, 'GET', `/workflow/runs?workflowName=arithmetic&limit=1&pageToken=${enc(token)}`);
  expectError(stale, 400, 'ValidationError');
  expectStatus(await http(api, 'GET', `/workflow/runs?workflowName=echo&limit=1&pageToken=${enc(token)}`), 200, 'the real token works');
  assert.match(first.body.runs[0].runId, UUID);
});

test.run();
