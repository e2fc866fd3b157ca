import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TraceKey, TraceRecord } from '../../core/domain/trace.js';
import { shareTraceReads } from '../../core/trace/sharedReads.js';
import type { TraceStore } from '../../ports/traceStore.js';

/** Concurrent trace-log readers of one trace share one parsed record (core/trace/sharedReads.ts). */

class CountingStore implements TraceStore {
  readonly kind = 'local' as const;
  reads = 0;
  failNext = false;
  async write(_key: TraceKey, _trace: TraceRecord): Promise<string> {
    return '/traces/a.json';
  }
  async locate(): Promise<string | undefined> {
    return '/traces/a.json';
  }
  async read(location: string): Promise<TraceRecord | undefined> {
    this.reads += 1;
    await new Promise((resolve) => setTimeout(resolve, 5));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('disk on fire');
    }
    if (location.endsWith('missing.json')) return undefined;
    // Each read its own record (its output says which read), so sharing shows as the same object.
    return { workflowId: 'wf', runId: 'run-1', workflowName: 'w', input: null, output: { read: this.reads }, error: null, startedAt: '2026-01-01T00:00:00.000Z', closedAt: null, steps: [] };
  }
}

test('concurrent reads of one trace are one read; a record still held is not read again', async () => {
  const store = new CountingStore();
  const shared = shareTraceReads(store);
  const [first, second, third] = await Promise.all([shared.read('/traces/a.json'), shared.read('/traces/a.json'), shared.read('/traces/a.json')]);
  assert.is(store.reads, 1);
  assert.ok(first === second && second === third, 'one record for every reader');
  assert.is(await shared.read('/traces/a.json'), first, 'held by a reader: not read again');
  assert.is(store.reads, 1);
  await shared.read('/traces/b.json');
  assert.is(store.reads, 2, 'another trace is another read');
});

test('a write forgets the record at its location; a missing trace or a failed read is not kept', async () => {
  const store = new CountingStore();
  const shared = shareTraceReads(store);
  const before = await shared.read('/traces/a.json');
  await shared.write({} as TraceKey, {} as TraceRecord);
  const after = await shared.read('/traces/a.json');
  assert.is.not(after, before);
  assert.is(store.reads, 2);
  assert.is(await shared.read('/traces/missing.json'), undefined);
  assert.is(await shared.read('/traces/missing.json'), undefined);
  assert.is(store.reads, 4, 'nothing to share for a missing trace');
  store.failNext = true;
  await shared.read('/traces/c.json').then(
    () => assert.unreachable('the failure reaches the reader'),
    (error: Error) => assert.match(error.message, /disk on fire/),
  );
  assert.ok(await shared.read('/traces/c.json'), 'a failed read is tried again');
  assert.is(shared.kind, 'local');
  assert.is(await shared.locate({} as TraceKey), '/traces/a.json');
});

test('a held record is served again only while the store says the trace is still there; owns and exists are passed through', async () => {
  const store = new CountingStore();
  let present = true;
  const withExists: TraceStore = Object.assign(store, {
    exists: async () => present,
    owns: (location: string) => location.startsWith('/traces/'),
  });
  const shared = shareTraceReads(withExists);
  const first = await shared.read('/traces/a.json');
  assert.is(await shared.read('/traces/a.json'), first, 'still there: the held record');
  assert.is(store.reads, 1);
  present = false;
  // Removed (a clean-up of TRACE_DIR): the store is asked, not the memory of the earlier read.
  const after = await shared.read('/traces/a.json');
  assert.is(store.reads, 2);
  assert.is.not(after, first);
  assert.is(shared.owns?.('/traces/a.json'), true, 'the store tells its own directory from a worker\'s elsewhere');
  assert.is(shared.owns?.('/elsewhere/a.json'), false);
  assert.is(await shared.exists?.('/traces/a.json'), false);
});

test.run();
