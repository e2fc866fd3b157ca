import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryRunIndex as RunStore, type IndexedRun as StoredRun } from '../../../adapters/embedded/store/memoryRunIndex.js';
import type { RunDescription } from '../../../core/domain/run.js';

/** The store's eviction, on plain runs of a known size. */

function closedRun(runId: string, bytes: number, workflowId = `wf-${runId}`): StoredRun {
  const description = { workflowId, runId, status: 'completed' } as RunDescription;
  return { description, closed: true, retainedBytes: bytes };
}

function addClosed(store: RunStore<StoredRun>, run: StoredRun): StoredRun {
  store.add(run);
  store.markClosed(run);
  return run;
}

const present = (store: RunStore<StoredRun>, run: StoredRun): boolean => store.lookup(run.description) !== undefined;

test('closed runs are evicted oldest first once their bytes pass maxClosedBytes', () => {
  const store = new RunStore<StoredRun>(100, 1000);
  const runs = ['a', 'b', 'c', 'd'].map((id) => addClosed(store, closedRun(id, 300)));
  assert.equal(store.usage(), { openRuns: 0, closedRuns: 3, closedBytes: 900 });
  assert.equal(runs.map((run) => present(store, run)), [false, true, true, true]);
  const big = addClosed(store, closedRun('e', 700));
  assert.equal(store.usage(), { openRuns: 0, closedRuns: 2, closedBytes: 1000 }, 'exactly at the limit is within it');
  assert.equal([...runs, big].map((run) => present(store, run)), [false, false, false, true, true]);
});

test('the count limit still holds, whichever limit is reached first', () => {
  const store = new RunStore<StoredRun>(2, 1_000_000);
  const runs = ['a', 'b', 'c'].map((id) => addClosed(store, closedRun(id, 10)));
  assert.equal(runs.map((run) => present(store, run)), [false, true, true]);
  assert.equal(store.usage(), { openRuns: 0, closedRuns: 2, closedBytes: 20 });
});

test('a run bigger than the limit on its own is forgotten as it closes; open runs are never evicted', () => {
  const store = new RunStore<StoredRun>(100, 1000);
  const open = { ...closedRun('open', 5000), closed: false };
  store.add(open);
  const small = addClosed(store, closedRun('small', 100));
  const huge = addClosed(store, closedRun('huge', 5000));
  assert.not.ok(present(store, huge));
  assert.not.ok(present(store, small), 'older than the huge one');
  assert.ok(present(store, open));
  assert.equal(store.usage(), { openRuns: 1, closedRuns: 0, closedBytes: 0 });
});

test('the runs of an id are forgotten one by one; the latest left is the latest', () => {
  const store = new RunStore<StoredRun>(2);
  const first = addClosed(store, closedRun('1', 1, 'same'));
  const second = addClosed(store, closedRun('2', 1, 'same'));
  const third = addClosed(store, closedRun('3', 1, 'same'));
  assert.equal(store.runsOf('same'), [second, third]);
  assert.is(store.latest('same'), third);
  assert.not.ok(present(store, first));
});

test('an evicted run is released at once, not kept until the queue of closed runs is compacted', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const store = new RunStore<StoredRun>(1);
  const released: WeakRef<StoredRun>[] = [];
  for (let index = 0; index < 10; index += 1) released.push(new WeakRef(addClosed(store, closedRun(String(index), 10))));
  // A WeakRef keeps its target until the current job ends.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(released.map((ref) => ref.deref() !== undefined), [...Array(9).fill(false), true]);
});

test.run();
