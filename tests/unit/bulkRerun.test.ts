import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bulkRerun } from '../../core/useCases/bulkRerun.js';
import { MAX_BULK_RUNS } from '../../core/useCases/bulkRuns.js';
import { ValidationError } from '../../core/domain/errors.js';
import type { ListRunsQuery, RunList } from '../../ports/engine.js';
import { FakeEngine } from '../support/fakeEngine.js';
import type { PinnedRunRef, RunDescription, StartCommand } from '../../core/domain/run.js';
import { CapturingLogger } from '../support/logLines.js';

/**
 * Just the engine calls a bulk rerun makes: a listing of `total` runs of `echo` in catalog `main` (every third one
 * closed), their inputs (run-7's no longer valid), the catalog, and starts.
 */
function engineWith(total: number) {
  const started: StartCommand[] = [];
  const run = (index: number) =>
    ({ workflowId: `wf-${index}`, runId: `run-${index}`, workflowName: 'echo', catalog: 'main', status: index % 3 === 0 ? 'completed' : 'running' }) as RunDescription;
  const engine = new FakeEngine({
    async listRuns(query: ListRunsQuery): Promise<RunList> {
      const from = query.pageToken ? Number(query.pageToken) : 0;
      const to = Math.min(total, from + query.limit);
      return { runs: Array.from({ length: to - from }, (_, offset) => run(from + offset)), nextPageToken: to < total ? String(to) : null };
    },
    async getInput(ref: PinnedRunRef) {
      return ref.runId === 'run-7' ? { message: 7 } : { message: ref.runId };
    },
    async describeCatalog() {
      const inputSchema = { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] };
      return { name: 'main', available: true, workflows: [{ name: 'echo', description: '', inputSchema, outputSchema: {} }] };
    },
    async catalogsWithWorkflow() {
      return ['main'];
    },
    async start(command: StartCommand) {
      started.push(command);
      return { ...command, runId: `new-${started.length}`, status: 'running', startedAt: new Date(0), closedAt: null, firstRunId: `new-${started.length}` };
    },
  });
  let ids = 0;
  const deps = { engine, logger: new CapturingLogger(), ids: { uuid: () => `id-${++ids}` }, defaultCatalog: 'main' };
  return { deps, started };
}

test('no filter at all is a ValidationError; a dry run lists every matching run, open and closed, and starts none', async () => {
  const { deps, started } = engineWith(5);
  try {
    await bulkRerun(deps, { filter: {}, dryRun: true });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ValidationError);
  }
  const dry = await bulkRerun(deps, { filter: { workflowName: 'echo' }, dryRun: true });
  assert.equal(dry, {
    action: 'rerun',
    dryRun: true,
    matched: 5,
    runs: [0, 1, 2, 3, 4].map((index) => ({ workflowId: `wf-${index}`, runId: `run-${index}` })),
    started: [],
    succeeded: 0,
    failures: [],
    truncated: false,
  });
  assert.is(started.length, 0);
});

test('each run is rerun under a new id with its own input and rerunOf; one that fails is reported alone', async () => {
  const { deps, started } = engineWith(10);
  const view = await bulkRerun(deps, { filter: { catalog: 'main' }, dryRun: false });
  assert.is(view.matched, 10);
  assert.is(view.succeeded, 9);
  assert.is(view.started.length, 9);
  assert.equal(view.failures.map(({ workflowId, runId, error }) => ({ workflowId, runId, error })), [{ workflowId: 'wf-7', runId: 'run-7', error: 'ValidationError' }]);
  for (const command of started) {
    assert.match(command.workflowId, /^id-\d+$/);
    assert.is(command.workflowName, 'echo');
    assert.is(command.catalog, 'main');
    assert.equal(command.input, { message: command.rerunOf!.runId });
  }
  assert.equal(
    view.started.map((run) => run.rerunOf.runId),
    [0, 1, 2, 3, 4, 5, 6, 8, 9].map((index) => `run-${index}`),
    'sorted by the run each repeats',
  );
});

test(`more than ${MAX_BULK_RUNS} matching runs: the first ${MAX_BULK_RUNS}, truncated`, async () => {
  const { deps } = engineWith(MAX_BULK_RUNS + 5);
  const dry = await bulkRerun(deps, { filter: { status: 'running' }, dryRun: true });
  assert.is(dry.matched, MAX_BULK_RUNS);
  assert.is(dry.runs.length, MAX_BULK_RUNS);
  assert.is(dry.truncated, true);
});

test.run();
