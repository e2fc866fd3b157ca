import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bulkControl, MAX_BULK_RUNS } from '../../core/useCases/bulkControl.js';
import { EngineError, EngineUnavailableError, ValidationError, WorkflowClosedError } from '../../core/domain/errors.js';
import type { ListRunsQuery, RunList } from '../../ports/engine.js';
import { FakeEngine } from '../support/fakeEngine.js';
import type { RunDescription, RunRef } from '../../core/domain/run.js';
import { CapturingLogger } from '../support/logLines.js';

/** Just the engine calls a bulk operation makes: a listing of `total` runs in pages, and terminate/cancel. */
function engineWith(total: number, fail: (runId: string) => Error | undefined = () => undefined, closedBelow = 0) {
  const queries: ListRunsQuery[] = [];
  const acted: string[] = [];
  const run = (index: number) => ({ workflowId: `wf-${index}`, runId: `run-${index}`, status: index < closedBelow ? 'completed' : 'running' }) as RunDescription;
  const engine = new FakeEngine({
    async listRuns(query: ListRunsQuery): Promise<RunList> {
      queries.push(query);
      const from = query.pageToken ? Number(query.pageToken) : 0;
      const to = Math.min(total, from + query.limit);
      return { runs: Array.from({ length: to - from }, (_, offset) => run(from + offset)), nextPageToken: to < total ? String(to) : null };
    },
    async terminate(ref: RunRef) {
      const error = fail(ref.runId!);
      if (error) throw error;
      acted.push(ref.runId!);
      return ref as RunDescription;
    },
    async cancel(ref: RunRef) {
      acted.push(ref.runId!);
      return ref as RunDescription;
    },
  });
  return { engine, queries, acted };
}

test('no filter at all is a ValidationError before the engine is asked', async () => {
  const { engine, queries } = engineWith(3);
  try {
    await bulkControl({ engine, logger: new CapturingLogger() }, 'terminate', { filter: {}, dryRun: true });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ValidationError);
  }
  assert.is(queries.length, 0);
});

test('lists every page first, acts on each run once; the filter reaches the listing', async () => {
  const { engine, queries, acted } = engineWith(2500);
  const view = await bulkControl({ engine, logger: new CapturingLogger() }, 'cancel', { filter: { workflowName: 'w', status: 'running' }, dryRun: false });
  assert.equal(view, { action: 'cancel', dryRun: false, matched: 2500, alreadyClosed: 0, succeeded: 2500, failures: [], truncated: false });
  assert.is(queries.length, 3);
  assert.equal(queries[0], { workflowName: 'w', status: 'running', limit: 1000 });
  assert.is(new Set(acted).size, 2500);
});

test(`more than ${MAX_BULK_RUNS} matching runs: the first ${MAX_BULK_RUNS}, truncated; a dry run acts on none`, async () => {
  const { engine, acted } = engineWith(MAX_BULK_RUNS + 5);
  const dry = await bulkControl({ engine, logger: new CapturingLogger() }, 'terminate', { filter: { catalog: 'main' }, dryRun: true });
  assert.equal(dry, { action: 'terminate', dryRun: true, matched: MAX_BULK_RUNS, alreadyClosed: 0, succeeded: 0, failures: [], truncated: true });
  assert.is(acted.length, 0);
});

test('runs listed as closed are counted, never acted on, and do not use up the cap', async () => {
  // More closed runs than the cap, newest first, and the open ones behind them.
  const { engine, acted } = engineWith(15_500, () => undefined, 15_000);
  const view = await bulkControl({ engine, logger: new CapturingLogger() }, 'terminate', { filter: { workflowName: 'w' }, dryRun: false });
  assert.is(view.alreadyClosed, 15_000);
  assert.is(view.succeeded, 500);
  assert.is(view.matched, 15_500);
  assert.is(view.truncated, false);
  assert.ok(acted.every((runId) => Number(runId.slice(4)) >= 15_000), 'no closed run was asked to terminate');
});

test(`exactly ${MAX_BULK_RUNS} open runs with closed ones behind them: all acted on, the closed counted, not truncated`, async () => {
  const total = MAX_BULK_RUNS + 5;
  const run = (index: number) => ({ workflowId: `wf-${index}`, runId: `run-${index}`, status: index < MAX_BULK_RUNS ? 'running' : 'completed' }) as RunDescription;
  const engine = new FakeEngine({
    async listRuns(query: ListRunsQuery): Promise<RunList> {
      const from = query.pageToken ? Number(query.pageToken) : 0;
      const to = Math.min(total, from + query.limit);
      return { runs: Array.from({ length: to - from }, (_, offset) => run(from + offset)), nextPageToken: to < total ? String(to) : null };
    },
  });
  const dry = await bulkControl({ engine, logger: new CapturingLogger() }, 'terminate', { filter: { catalog: 'main' }, dryRun: true });
  assert.equal(dry, { action: 'terminate', dryRun: true, matched: total, alreadyClosed: 5, succeeded: 0, failures: [], truncated: false });
});

test("failures are per run: a named error keeps its message, an engine's own does not leak and is logged", async () => {
  const { engine } = engineWith(5, (runId) =>
    runId === 'run-1'
      ? new WorkflowClosedError('Run run-1 is already closed (completed).')
      : runId === 'run-3'
        ? new EngineError('rpc error at 10.0.0.7:7233')
        : runId === 'run-4'
          ? new EngineUnavailableError('dial tcp 10.0.0.7')
          : undefined,
  );
  const logger = new CapturingLogger();
  const view = await bulkControl({ engine, logger }, 'terminate', { filter: { status: 'running' }, dryRun: false });
  assert.is(view.succeeded, 2);
  assert.equal(view.failures, [
    { workflowId: 'wf-1', runId: 'run-1', error: 'WorkflowClosedError', message: 'Run run-1 is already closed (completed).' },
    { workflowId: 'wf-3', runId: 'run-3', error: 'EngineError', message: 'The workflow engine failed to handle the request.' },
    { workflowId: 'wf-4', runId: 'run-4', error: 'EngineUnavailableError', message: 'The workflow engine is temporarily unavailable; retry later.' },
  ]);
  assert.is(logger.entries.filter((entry) => entry.level === 'error').length, 2);
});

test.run();
