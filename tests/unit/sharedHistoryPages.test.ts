import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HistoryPage } from '../../core/domain/history.js';
import type { RunDescription, RunRef } from '../../core/domain/run.js';
import type { RunStatus } from '../../core/domain/status.js';
import { SharedHistoryPages } from '../../core/useCases/sharedHistoryPages.js';
import type { HistoryPageQuery } from '../../ports/engine.js';
import { collected } from '../support/collected.js';
import { FakeEngine } from '../support/fakeEngine.js';

/** Concurrent readers of one history page share one decoded page (core/useCases/sharedHistoryPages.ts). */

/** An engine that counts page reads and describes; its latest run of `wf` and that run's status can be changed. */
class CountingEngine extends FakeEngine {
  pageReads = 0;
  describes = 0;
  latestRunId = 'run-1';
  status: RunStatus = 'completed';
  /** Whether the last page shows the closing event (the durable store shows it once committed). */
  closingVisible = true;

  description(runId: string): RunDescription {
    return { workflowId: 'wf', runId, workflowName: 'w', catalog: 'main', status: this.status, startedAt: new Date(0), closedAt: null, firstRunId: runId };
  }

  override async describe(ref: RunRef): Promise<RunDescription> {
    this.describes += 1;
    return this.description(ref.runId ?? this.latestRunId);
  }

  override async historyPage(ref: RunRef, query: HistoryPageQuery): Promise<{ run: RunDescription; page: HistoryPage }> {
    this.pageReads += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const last = query.pageToken === undefined ? 'step_completed' : this.closingVisible ? 'workflow_completed' : 'step_completed';
    const page: HistoryPage = {
      events: [{ eventId: 1, type: last, time: 't', attributes: { output: 'x'.repeat(1000) } }],
      nextPageToken: query.pageToken === undefined ? 'next' : null,
    };
    return { run: this.description(ref.runId ?? this.latestRunId), page };
  }
}

function shared(engine: CountingEngine): SharedHistoryPages {
  return new SharedHistoryPages(engine);
}

test('concurrent reads of one page are one engine read; a page of a closed run still held is not read again', async () => {
  const engine = new CountingEngine();
  const pages = shared(engine);
  const query = { pageSize: 50 };
  const [first, second, third] = await Promise.all([pages.read({ workflowId: 'wf', runId: 'run-1' }, query), pages.read({ workflowId: 'wf', runId: 'run-1' }, query), pages.read({ workflowId: 'wf', runId: 'run-1' }, query)]);
  assert.is(engine.pageReads, 1);
  assert.ok(first === second && second === third, 'one page for every reader');
  assert.is(await pages.read({ workflowId: 'wf', runId: 'run-1' }, query), first, 'held by a reader: not read again');
  assert.is(engine.pageReads, 1);
  await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 50, pageToken: 'next' });
  await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 10 });
  assert.is(engine.pageReads, 3, 'another token, another page size: another page');
});

test('a latest-run request finds a held page of the run that is the latest now, and only then', async () => {
  const engine = new CountingEngine();
  const pages = shared(engine);
  const query = { pageSize: 50 };
  const first = await pages.read({ workflowId: 'wf' }, query);
  assert.is(engine.describes, 0, 'nothing held of the workflow: no describe');
  assert.is(await pages.read({ workflowId: 'wf' }, query), first);
  assert.is(await pages.read({ workflowId: 'wf', runId: 'run-1' }, query), first, 'the same page asked by its run');
  assert.is(engine.pageReads, 1);
  engine.latestRunId = 'run-2';
  const latest = await pages.read({ workflowId: 'wf' }, query);
  assert.is(latest.run.runId, 'run-2', 'a newer run of the workflow is read, not the held page of the older');
  assert.is(engine.pageReads, 2);
});

test('pages of an open run, and a closed run whose closing event is not shown yet, are not held', async () => {
  const engine = new CountingEngine();
  const pages = shared(engine);
  engine.status = 'running';
  const open = await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 50 });
  assert.is.not(await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 50 }), open);
  assert.is(engine.pageReads, 2);
  engine.status = 'completed';
  engine.closingVisible = false;
  const tail = { pageSize: 50, pageToken: 'next' };
  const early = await pages.read({ workflowId: 'wf', runId: 'run-1' }, tail);
  engine.closingVisible = true;
  const complete = await pages.read({ workflowId: 'wf', runId: 'run-1' }, tail);
  assert.is.not(complete, early);
  assert.is(complete.page.events.at(-1)?.type, 'workflow_completed');
  assert.is(await pages.read({ workflowId: 'wf', runId: 'run-1' }, tail), complete, 'the complete last page is held');
});

test('a page nobody holds any more is let go, and read again', async () => {
  const engine = new CountingEngine();
  const pages = shared(engine);
  // Made in a function of its own: a suspended async function may keep its temporaries.
  const readWeakly = async () => new WeakRef(await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 50 }));
  const gone = await readWeakly();
  assert.ok(await collected(gone), 'the shared pages do not keep a page alive');
  await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 50 });
  assert.is(engine.pageReads, 2);
});

test('a failed read reaches every reader waiting for it, and is tried again', async () => {
  const engine = new CountingEngine();
  const pages = shared(engine);
  const failing = Object.assign(Object.create(engine) as CountingEngine, {
    historyPage: async () => {
      throw new Error('engine on fire');
    },
  });
  const broken = shared(failing);
  const outcomes = await Promise.allSettled([broken.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 5 }), broken.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 5 })]);
  assert.equal(outcomes.map((outcome) => outcome.status), ['rejected', 'rejected']);
  assert.ok(await pages.read({ workflowId: 'wf', runId: 'run-1' }, { pageSize: 5 }));
});

test.run();
