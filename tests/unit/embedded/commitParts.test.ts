import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { CommitBatch } from '../../../adapters/embedded/store/sqlite/commitBatch.js';
import type { RunRecord } from '../../../adapters/embedded/runRecord.js';
import type { SqliteStore } from '../../../adapters/embedded/store/sqlite/sqliteStore.js';
import { durableHarness } from './durableSupport.js';
import { flush } from './support.js';
import { rejection } from '../../support/rejection.js';

/** The durable store commits a turn's changes in parts, one transaction and one turn each, linked runs together. */

const run = (runId: string) => ({ description: { runId } }) as unknown as RunRecord;
const runIds = (records: RunRecord[]) => records.map((record) => record.description.runId);
const key = (runId: string) => ({ fingerprint: 'f', requestedAt: new Date(0), answer: { workflowId: 'w', runId } });

test('parts: runs in the order they changed, linked runs (transitively) in one part, keys and ended callbacks with their run', () => {
  const batch = new CommitBatch();
  const [a, b, c, d, e] = ['a', 'b', 'c', 'd', 'e'].map(run) as [RunRecord, RunRecord, RunRecord, RunRecord, RunRecord];
  for (const record of [a, b, c, d, e]) batch.changed(record);
  batch.together(b, d);
  batch.together(d, e);
  batch.together(a, run('not-in-batch'));
  batch.controlKeys.push(['k-e', key('e')], ['k-gone', key('gone')]);
  batch.callbacksEnded.push({ workflowId: 'w', runId: 'c' });
  const parts = batch.parts();
  assert.equal(parts.map((part) => runIds(part.runs)), [['a'], ['b', 'd', 'e'], ['c']]);
  assert.equal(parts[1]!.controlKeys.map(([name]) => name), ['k-e']);
  assert.equal(parts[0]!.controlKeys.map(([name]) => name), ['k-gone'], 'a key whose run did not change goes first');
  assert.equal(parts[2]!.callbacksEnded.map((ended) => ended.runId), ['c']);
});

test('waiters: a run goes on when its part is committed, a part that failed rejects its runs and the whole batch', async () => {
  const batch = new CommitBatch();
  const [a, b] = [run('a'), run('b')];
  batch.changed(a);
  batch.changed(b);
  const settled: string[] = [];
  const watch = (name: string, promise: Promise<void>) => promise.then(() => settled.push(`${name} ok`), (error: Error) => settled.push(`${name} ${error.message}`));
  const watched = [watch('a', batch.committed(a)), watch('b', batch.committed(b)), watch('other', batch.committed(run('x')))];
  const [first, second] = batch.parts();
  batch.partCommitted(first!);
  await flush();
  assert.equal(settled, ['a ok']);
  batch.failed([second!], new Error('disk full'));
  await Promise.all(watched);
  assert.equal(settled, ['a ok', 'b disk full', 'other disk full']);
});

const echo = workflow({ name: 'echo', description: 'Returns its input', inputSchema: z.unknown(), outputSchema: z.unknown(), fn: async (input) => input });
const again = workflow({
  name: 'again',
  description: 'Continues as new once',
  inputSchema: z.object({ round: z.number() }),
  outputSchema: z.unknown(),
  fn: async ({ round }, ctx) => (round === 0 ? ctx.continueAsNew({ round: 1 }) : { round }),
});

/** Records what each transaction of the store held: run ids per commitPart call, and the turns between them. */
function watchParts(store: SqliteStore): { parts: string[][]; turnsBetween: number[] } {
  const seen = { parts: [] as string[][], turnsBetween: [] as number[] };
  let turns = 0;
  const tick = () => {
    turns += 1;
    if (seen.parts.length < 10_000) setImmediate(tick).unref();
  };
  setImmediate(tick).unref();
  const target = store as unknown as { commitPart(flushing: { parts: { runs: RunRecord[] }[]; next: number }, budgetMs: number): void };
  const commitPart = target.commitPart.bind(store);
  target.commitPart = (flushing, budgetMs) => {
    const from = flushing.next;
    commitPart(flushing, budgetMs);
    const to = flushing.next > from ? flushing.next : flushing.parts.length;
    seen.parts.push(flushing.parts.slice(from, to).flatMap((part) => runIds(part.runs)));
    seen.turnsBetween.push(turns);
  };
  return seen;
}

test('three hundred starts in one turn are committed in several transactions, the loop going round between them; every run completes', async () => {
  const harness = await durableHarness([echo]);
  try {
    const seen = watchParts(harness.store);
    const started = await Promise.all(Array.from({ length: 300 }, (_, index) => harness.run(echo, { index }, `many-${index}`)));
    assert.ok(seen.parts.length > 1, `the starts' turn was committed in ${seen.parts.length} transaction(s)`);
    const turns = seen.turnsBetween;
    assert.ok(turns.slice(1).every((turn, index) => turn > turns[index]!), `a turn between every two transactions: ${turns.join(',')}`);
    for (const [index, ref] of started.entries()) assert.equal((await harness.outcome(ref)).output, { index });
  } finally {
    harness.close();
  }
});

test('a continue-as-new among hundreds of starts: the closing run and its successor are in one transaction', async () => {
  const harness = await durableHarness([echo, again]);
  try {
    const seen = watchParts(harness.store);
    const chain = await harness.run(again, { round: 0 }, 'chain');
    await Promise.all(Array.from({ length: 300 }, (_, index) => harness.run(echo, { index }, `crowd-${index}`)));
    const outcome = await harness.outcome(chain);
    assert.equal(outcome.output, { round: 1 });
    const successor = outcome.run.runId;
    assert.is.not(successor, chain.runId);
    const holding = seen.parts.filter((part) => part.includes(successor));
    assert.ok(holding.length > 0, 'the successor was written');
    assert.ok(holding[0]!.includes(chain.runId), 'the successor was first written with the close of the run it continues');
  } finally {
    harness.close();
  }
});

test('a transaction that fails after others committed: the starts it held are refused and do not exist, the ones committed before go on', async () => {
  const harness = await durableHarness([echo]);
  try {
    const seen = watchParts(harness.store);
    const target = harness.store as unknown as { write(record: RunRecord, commands: unknown): () => void };
    const write = target.write.bind(harness.store);
    target.write = (record, commands) => {
      if (record.description.workflowId === 'late-299') throw new Error('disk I/O error');
      return write(record, commands);
    };
    const settled = await Promise.allSettled(Array.from({ length: 300 }, (_, index) => harness.run(echo, { index }, `late-${index}`)));
    target.write = write;
    assert.ok(seen.parts.length > 1);
    const refused = settled.flatMap((result, index) => (result.status === 'rejected' ? [index] : []));
    assert.ok(refused.includes(299), 'the start whose write failed is refused');
    assert.ok(refused.length < 300, `starts of the parts committed before are answered (${refused.length} refused)`);
    for (const index of refused) {
      assert.is(((settled[index] as PromiseRejectedResult).reason as Error).name, 'EngineUnavailableError');
      assert.is((await rejection(harness.engine.describe({ workflowId: `late-${index}` })) as Error).name, 'WorkflowNotFoundError');
    }
    for (const [index, result] of settled.entries()) {
      if (result.status === 'fulfilled') assert.equal((await harness.outcome(result.value)).output, { index });
    }
  } finally {
    harness.close();
  }
});

test.run();
