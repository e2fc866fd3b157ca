// TemporalEngine on a real Temporal server: the catalog registry, run time limits, health and buffered feedback
// (tests/temporal/engineHarness.ts sets up the server, the engine and a worker of fixture workflows).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOG_MEMO_KEY, CATALOG_WORKFLOW_TYPE, catalogWorkflowId, type CatalogMemo } from '../../adapters/temporal/protocol.js';
import { idFor, rejectsWith, run, startHarness, stopHarness, type EngineHarness } from './engineHarness.js';

const test = suite<EngineHarness>('TemporalEngine on a real server: catalogs');

test.before((context) => startHarness(context, 'catalogs'));
test.after((context) => stopHarness(context));

test('catalogs: memo read by describe, availability from live pollers, the registry run hidden', async (context) => {
  const memo: CatalogMemo = {
    catalog: context.catalog,
    workflows: [
      { name: 'arithmetic', description: 'adds and doubles', inputSchema: { type: 'object' }, outputSchema: {} },
      // The definition's run time limit travels in the memo; the engine starts the run with it.
      { name: 'naps', description: 'sleeps', inputSchema: {}, outputSchema: {}, runTimeoutMs: 200 } as CatalogMemo['workflows'][number],
    ],
    onlineWorkers: ['test-worker'],
    publishedAt: new Date().toISOString(),
  };
  assert.is(await context.engine.describeCatalog(context.catalog), undefined, 'unknown before the registry exists');
  context.clock.skip(1100); // past the cached "unknown"
  const registry = await context.client.workflow.start(CATALOG_WORKFLOW_TYPE, {
    taskQueue: `registry-${context.stamp}`,
    workflowId: catalogWorkflowId(context.catalog),
    memo: { [CATALOG_MEMO_KEY]: memo },
  });
  try {
    const described = await context.engine.describeCatalog(context.catalog);
    assert.equal(described, {
      name: context.catalog,
      available: true,
      workflows: memo.workflows.map(({ name, description, inputSchema, outputSchema }) => ({ name, description, inputSchema, outputSchema })),
    });
    assert.ok((await context.engine.describeCatalog(context.catalog))!.workflows === described!.workflows, 'cached');
    context.clock.skip(1100); // past the cached description
    const again = await context.engine.describeCatalog(context.catalog);
    assert.ok(again!.workflows[0] === described!.workflows[0], 'the same objects while the memo is unchanged');
    // Other suites' catalogs may share the server: ours must be among them.
    assert.ok((await context.engine.catalogsWithWorkflow('arithmetic')).includes(context.catalog));
    assert.equal(await context.engine.catalogsWithWorkflow('never_published'), []);
    await rejectsWith(() => context.engine.describe({ workflowId: registry.workflowId }), 'WorkflowNotFoundError');
    const registryRuns = await context.engine.listRuns({ catalog: `registry-${context.stamp}`, limit: 10 });
    assert.equal(registryRuns.runs, []);
    const { outcome } = await run(context, 'naps', { ms: 60_000 }, idFor(context, 'run-timeout'));
    assert.is(outcome.run.status, 'timed_out');
    assert.is(outcome.failure?.name, 'WorkflowTimedOutError');
  } finally {
    await registry.terminate();
  }
});

test('health answers; an aborted signal rejects at once', async (context) => {
  await context.engine.health(new AbortController().signal);
  const controller = new AbortController();
  controller.abort(new Error('gave up'));
  await rejectsWith(() => context.engine.health(controller.signal), 'Error', 'the abort reason');
});

test('feedback sent before the run waits is buffered and used', async (context) => {
  const open = await context.engine.start({ workflowName: 'stepThenWaits', catalog: context.catalog, workflowId: idFor(context, 'buffered'), input: { n: 1 } });
  await context.engine.deliverFeedback(open.workflowId, { go: 1 });
  const outcome = await context.engine.awaitOutcome({ workflowId: open.workflowId, runId: open.runId }, { timeoutMs: 30_000 });
  assert.equal(outcome?.output, { n: 2, reply: { go: 1 } });
});

test.run();
