import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ValidationError } from '../../core/domain/errors.js';
import { checkAwaitTimeout, checkHistoryPageSize, checkRunListLimit, MAX_HISTORY_PAGE_SIZE, MAX_RUN_LIST_LIMIT } from '../../core/domain/requestBounds.js';
import { awaitOutcomeUnlessAborted } from '../../core/useCases/awaitRun.js';
import { historyPage } from '../../core/useCases/readHistory.js';
import { listRuns } from '../../core/useCases/listRuns.js';
import type { WorkflowEngine } from '../../ports/engine.js';

/** An engine the use cases must not reach: a request out of bounds is refused before it is asked. */
const untouchedEngine = new Proxy({} as WorkflowEngine, {
  get: (_target, name) => () => {
    throw new Error(`the engine was asked (${String(name)})`);
  },
});

async function issuesOf(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    assert.instance(error, ValidationError);
    return (error as InstanceType<typeof ValidationError>).issues;
  }
  return assert.unreachable('accepted');
}

test('the run list use case refuses a limit outside 1..MAX_RUN_LIST_LIMIT before the engine is asked', async () => {
  for (const limit of [0, MAX_RUN_LIST_LIMIT + 1, 1.5, Number.NaN]) {
    const message = 'limit must be an integer from 1 to 1000';
    assert.equal(await issuesOf(() => listRuns({ engine: untouchedEngine }, { limit })), [{ code: 'invalid_limit', path: ['limit'], message }]);
  }
  checkRunListLimit(1);
  checkRunListLimit(MAX_RUN_LIST_LIMIT);
});

test('the history use case refuses a pageSize outside 1..MAX_HISTORY_PAGE_SIZE before the engine is asked', async () => {
  for (const pageSize of [0, MAX_HISTORY_PAGE_SIZE + 1, 2.5]) {
    const message = 'pageSize must be an integer from 1 to 200';
    assert.equal(await issuesOf(() => historyPage({ engine: untouchedEngine }, { workflowId: 'w' }, { pageSize })), [
      { code: 'invalid_page_size', path: ['pageSize'], message },
    ]);
  }
  checkHistoryPageSize(1);
  checkHistoryPageSize(MAX_HISTORY_PAGE_SIZE);
});

test('a wait for an outcome takes 0 ms or more, Infinity too, and refuses the rest before the engine is asked', async () => {
  for (const timeoutMs of [-1, Number.NaN]) {
    try {
      await awaitOutcomeUnlessAborted(untouchedEngine, { workflowId: 'w', runId: 'r' }, { timeoutMs }, []);
      assert.unreachable('accepted');
    } catch (error) {
      assert.instance(error, RangeError);
      assert.is((error as Error).message, `awaitOutcome: timeoutMs must be a number >= 0, got ${String(timeoutMs)}`);
    }
  }
  checkAwaitTimeout(0);
  checkAwaitTimeout(Number.POSITIVE_INFINITY);
});

test.run();
