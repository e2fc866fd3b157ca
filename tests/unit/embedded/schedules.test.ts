import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import type { ScheduleDefinition } from '../../../core/domain/schedule.js';
import { durableHarness } from './durableSupport.js';

/*
 * The embedded engine's scheduler on a fake clock (docs/schedules.md): fires on time, stops at endAt, keeps its jitter
 * bound, and after a restart acts on the fires the catch-up window allows, drops the older ones, and starts none twice.
 */
const quick = workflow({ name: 'quick', inputSchema: z.object({ n: z.number() }), outputSchema: z.unknown(), fn: async (input) => input });
/** Stays open until it is sent a reply: a run the next fires overlap. */
const waits = workflow({ name: 'waits', inputSchema: z.object({ n: z.number() }), outputSchema: z.unknown(), fn: async (_input, ctx) => ctx.waitForWebhook({}) });
const breaks = workflow({
  name: 'breaks',
  inputSchema: z.object({ n: z.number() }),
  outputSchema: z.unknown(),
  fn: async () => {
    throw new Error('the nightly sync broke');
  },
});

const every = (scheduleId: string, everyMs: number, extra: Partial<ScheduleDefinition> = {}): ScheduleDefinition => ({
  scheduleId,
  workflowName: 'quick',
  catalog: 'main',
  input: { n: 1 },
  spec: { calendar: { kind: 'every', everyMs, offsetMs: 0 }, timezone: 'UTC', jitterMs: 0 },
  policy: { overlap: 'allow_all', catchupWindowMs: 30_000, pauseOnFailure: false },
  paused: false,
  note: '',
  ...extra,
});

async function runIds(h: Awaited<ReturnType<typeof durableHarness>>, scheduleId: string): Promise<string[]> {
  return (await h.engine.listRuns({ scheduleId, limit: 1000 })).runs.map((run) => run.workflowId).sort();
}

test('fires at each interval on the engine clock, naming each run by its fire time, and not past endAt', async () => {
  const h = await durableHarness([quick]);
  try {
    const endAt = new Date(h.clock.now() + 30_000);
    await h.engine.schedules.create(every('tick', 10_000, { spec: { calendar: { kind: 'every', everyMs: 10_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 0, endAt } }));
    await h.clock.advance(60_000);
    assert.equal(await runIds(h, 'tick'), ['tick-2026-01-01T00:00:10Z', 'tick-2026-01-01T00:00:20Z', 'tick-2026-01-01T00:00:30Z']);
    const described = await h.engine.schedules.describe('tick');
    assert.is(described.state.actionCount, 3);
    assert.equal(described.state.nextFireTimes, []);
  } finally {
    h.close();
  }
});

test('jitter delays each fire by less than its bound; the run keeps the fire time in its id', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('jittery', 60_000, { spec: { calendar: { kind: 'every', everyMs: 60_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 20_000 } }));
    await h.clock.advance(59_999);
    assert.equal(await runIds(h, 'jittery'), []);
    await h.clock.advance(20_000);
    assert.equal(await runIds(h, 'jittery'), ['jittery-2026-01-01T00:01:00Z']);
    const [action] = (await h.engine.schedules.describe('jittery')).state.recentActions;
    assert.ok(action!.startedAt.getTime() >= Date.parse('2026-01-01T00:01:00Z') && action!.startedAt.getTime() < Date.parse('2026-01-01T00:01:20Z'));
  } finally {
    h.close();
  }
});

test('the next fire times are when the runs start, jitter included (as Temporal lists them)', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('jittery', 60_000, { spec: { calendar: { kind: 'every', everyMs: 60_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 20_000 } }));
    const [first, second] = (await h.engine.schedules.describe('jittery')).state.nextFireTimes;
    assert.ok(first!.getTime() > Date.parse('2026-01-01T00:01:00Z') && first!.getTime() < Date.parse('2026-01-01T00:01:20Z'), first!.toISOString());
    assert.ok(second!.getTime() > Date.parse('2026-01-01T00:02:00Z') && second!.getTime() < Date.parse('2026-01-01T00:02:20Z'), second!.toISOString());
    await h.clock.advance(first!.getTime() - h.clock.now() - 1);
    assert.equal(await runIds(h, 'jittery'), []);
    // Past its nominal time, before its jitter: still the next fire.
    assert.equal((await h.engine.schedules.describe('jittery')).state.nextFireTimes[0], first);
    await h.clock.advance(1);
    assert.equal(await runIds(h, 'jittery'), ['jittery-2026-01-01T00:01:00Z']);
    const described = await h.engine.schedules.describe('jittery');
    assert.equal(described.state.recentActions[0]!.startedAt, first);
    assert.equal(described.state.nextFireTimes[0], second);
  } finally {
    h.close();
  }
});

test('an update made from a read before a pause keeps the pause: only the parts the request changed are written', async () => {
  const h = await durableHarness([quick]);
  try {
    const base = (await h.engine.schedules.create(every('raced', 60_000))).definition;
    await h.engine.schedules.setPaused('raced', true, 'paused meanwhile', 'other');
    const updated = await h.engine.schedules.update({ ...base, input: { n: 5 } }, 'ci', base);
    assert.equal(updated.definition.input, { n: 5 });
    assert.is(updated.state.paused, true, 'the pause made meanwhile stays');
    assert.is(updated.state.note, 'paused meanwhile');
    // Without a base (the whole definition given): written as given.
    const replaced = await h.engine.schedules.update({ ...base, input: { n: 6 } }, 'ci');
    assert.is(replaced.state.paused, false);
  } finally {
    h.close();
  }
});

test('after a restart the fires within the catch-up window are acted on, the older dropped, none started twice', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('nightly', 10_000));
    await h.clock.advance(20_000);
    const before = await runIds(h, 'nightly');
    assert.equal(before, ['nightly-2026-01-01T00:00:10Z', 'nightly-2026-01-01T00:00:20Z']);
    // Down for 100 s: fires at 30 s … 120 s were missed; at 120 s, those within 30 s of now (90, 100, 110, 120) are caught up.
    await h.restart({ downMs: 100_000 });
    await h.clock.advance(0);
    const after = await runIds(h, 'nightly');
    assert.equal(after, [...before, ...['01:30', '01:40', '01:50', '02:00'].map((time) => `nightly-2026-01-01T00:${time}Z`)]);
    const described = await h.engine.schedules.describe('nightly');
    assert.is(described.state.actionCount, 6);
    assert.is(described.state.missedCount, 6, 'fires at 30 … 80 s were dropped');
    assert.is(new Set(after).size, after.length);
  } finally {
    h.close();
  }
});

test('a fire whose run cannot start (no worker serves its catalog) is tried again every 5 s, not at once, and starts once one does', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('orphan', 10_000, { catalog: 'nowhere' }));
    const failures = () => h.logger.lines.filter((line) => line.msg.includes('could not start')).length;
    // Before the fix the retry was armed for 0 ms: the fake clock's advance never returned (a busy loop on a real one).
    const bounded = (advancing: Promise<void>) =>
      Promise.race([advancing, new Promise((_, reject) => setTimeout(() => reject(new Error('the retry never waited')), 5_000).unref())]);
    await bounded(h.clock.advance(12_000));
    // A worker may be registering still (at start the schedules resume first): the first try that finds none is not
    // said; the retry that finds none either is.
    assert.is(failures(), 0, 'the fire at 10 s found no worker once');
    await bounded(h.clock.advance(10_000));
    assert.is(failures(), 2, 'tried again at 15 s and 20 s, and said so');
    h.engine.registerWorker({ catalog: 'nowhere', workflows: [quick] });
    await h.clock.advance(0);
    assert.equal(await runIds(h, 'orphan'), ['orphan-2026-01-01T00:00:10Z', 'orphan-2026-01-01T00:00:20Z']);
  } finally {
    h.close();
  }
});

test('a restart whose missed fire finds the catalog served a moment later says nothing of it, and starts the run', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('soon', 10_000));
    await h.restart({ downMs: 12_000, register: false });
    // The schedules resume before the process registers its workers (composition loads the workflow files first).
    await h.clock.advance(0);
    h.engine.registerWorker({ catalog: 'main', workflows: [quick] });
    await h.clock.advance(0);
    assert.equal(await runIds(h, 'soon'), ['soon-2026-01-01T00:00:10Z']);
    assert.equal(h.logger.lines.filter((line) => line.level === 'warn').map((line) => line.msg), []);
  } finally {
    h.close();
  }
});

test('a schedule survives a restart as it was: paused, its note and its counts', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('kept', 10_000));
    await h.clock.advance(10_000);
    await h.engine.schedules.setPaused('kept', true, 'frozen', 'ops');
    await h.restart({ downMs: 60_000 });
    await h.clock.advance(0);
    const kept = await h.engine.schedules.describe('kept');
    assert.is(kept.state.paused, true);
    assert.is(kept.state.note, 'frozen');
    assert.is(kept.updatedBy, 'ops');
    assert.is(kept.state.actionCount, 1);
    assert.equal(await runIds(h, 'kept'), ['kept-2026-01-01T00:00:10Z'], 'nothing fires while paused');
  } finally {
    h.close();
  }
});


/** A schedule of `waits` every 10 s under `overlap`, fired 35 s of fake time: fires at 10, 20 and 30 s overlap the first run. */
async function overlapping(overlap: ScheduleDefinition['policy']['overlap']) {
  const h = await durableHarness([quick, waits, breaks]);
  await h.engine.schedules.create(every(overlap, 10_000, { workflowName: 'waits', policy: { overlap, catchupWindowMs: 60_000, pauseOnFailure: false } }));
  await h.clock.advance(35_000);
  return h;
}

async function statuses(h: Awaited<ReturnType<typeof durableHarness>>, scheduleId: string): Promise<string[]> {
  const runs = (await h.engine.listRuns({ scheduleId, limit: 100 })).runs;
  return runs.sort((a, b) => (a.workflowId < b.workflowId ? -1 : 1)).map((run) => `${run.workflowId.slice(-9, -1)} ${run.status}`);
}

test('overlap skip starts nothing beside the open run; buffer_one keeps one fire and starts it when the run closes', async () => {
  const skip = await overlapping('skip');
  try {
    assert.equal(await statuses(skip, 'skip'), ['00:00:10 running']);
    assert.is((await skip.engine.schedules.describe('skip')).state.missedCount, 2);
  } finally {
    skip.close();
  }
  const one = await overlapping('buffer_one');
  try {
    assert.equal(await statuses(one, 'buffer_one'), ['00:00:10 running']);
    await one.engine.deliverFeedback('buffer_one-2026-01-01T00:00:10Z', { done: true });
    await one.clock.advance(0);
    assert.equal(await statuses(one, 'buffer_one'), ['00:00:10 completed', '00:00:20 running'], 'the first buffered fire starts; the later one was skipped');
    assert.is((await one.engine.schedules.describe('buffer_one')).state.missedCount, 1);
  } finally {
    one.close();
  }
});

test('buffer_one: a buffered fire whose run cannot start yet stays buffered, and starts once a worker serves the catalog', async () => {
  const h = await overlapping('buffer_one'); // the 10 s run open, the 20 s fire buffered, the 30 s one skipped
  try {
    await h.restart({ register: false });
    // The open run ends while no worker serves `main`: the buffered fire's start fails.
    await h.engine.terminate({ workflowId: 'buffer_one-2026-01-01T00:00:10Z' }, 'ended by the test');
    await h.clock.advance(0);
    assert.equal(await statuses(h, 'buffer_one'), ['00:00:10 terminated']);
    assert.ok(h.logger.lines.some((line) => line.msg.includes('buffered run could not start')), 'the failure is logged');
    await h.clock.advance(5_000); // tried again, still no worker
    h.engine.registerWorker({ catalog: 'main', workflows: [quick, waits, breaks] });
    await h.clock.advance(0);
    assert.equal(await statuses(h, 'buffer_one'), ['00:00:10 terminated', '00:00:20 running'], 'the buffered fire was kept and started');
    assert.is((await h.engine.schedules.describe('buffer_one')).state.actionCount, 2);
  } finally {
    h.close();
  }
});

test('overlap buffer_all starts every waiting fire in turn; allow_all starts each at once', async () => {
  const all = await overlapping('buffer_all');
  try {
    await all.engine.deliverFeedback('buffer_all-2026-01-01T00:00:10Z', { done: true });
    await all.clock.advance(0);
    await all.engine.deliverFeedback('buffer_all-2026-01-01T00:00:20Z', { done: true });
    await all.clock.advance(0);
    assert.equal(await statuses(all, 'buffer_all'), ['00:00:10 completed', '00:00:20 completed', '00:00:30 running']);
  } finally {
    all.close();
  }
  const allow = await overlapping('allow_all');
  try {
    assert.equal(await statuses(allow, 'allow_all'), ['00:00:10 running', '00:00:20 running', '00:00:30 running']);
  } finally {
    allow.close();
  }
});

test('triggers within one second start one run and count one action (its id carries the second), as on Temporal', async () => {
  const h = await durableHarness([waits]);
  try {
    await h.engine.schedules.create(every('again', 3_600_000, { workflowName: 'waits', paused: true }));
    await h.clock.advance(1_250);
    for (let trigger = 0; trigger < 3; trigger += 1) await h.engine.schedules.trigger('again', 'allow_all');
    assert.equal(await runIds(h, 'again'), ['again-2026-01-01T00:00:01Z']);
    const described = await h.engine.schedules.describe('again');
    assert.is(described.state.actionCount, 1);
    assert.equal(described.state.recentActions.map((action) => action.run.workflowId), ['again-2026-01-01T00:00:01Z']);
    assert.is(described.state.runningRuns.length, 1);
    await h.clock.advance(1_000);
    await h.engine.schedules.trigger('again', 'allow_all');
    assert.equal(await runIds(h, 'again'), ['again-2026-01-01T00:00:01Z', 'again-2026-01-01T00:00:02Z']);
    assert.is((await h.engine.schedules.describe('again')).state.actionCount, 2);
  } finally {
    h.close();
  }
});

test('overlap terminate_other ends the open run and starts at once; cancel_other stops it and starts once it closed', async () => {
  const terminate = await overlapping('terminate_other');
  try {
    assert.equal(await statuses(terminate, 'terminate_other'), ['00:00:10 terminated', '00:00:20 terminated', '00:00:30 running']);
  } finally {
    terminate.close();
  }
  const cancel = await overlapping('cancel_other');
  try {
    assert.equal(await statuses(cancel, 'cancel_other'), ['00:00:10 cancelled', '00:00:20 cancelled', '00:00:30 running']);
  } finally {
    cancel.close();
  }
});

test('pauseOnFailure: a run that fails pauses the schedule, with a note naming the run', async () => {
  const h = await durableHarness([quick, waits, breaks]);
  try {
    await h.engine.schedules.create(every('fragile', 10_000, { workflowName: 'breaks', policy: { overlap: 'skip', catchupWindowMs: 60_000, pauseOnFailure: true } }));
    await h.clock.advance(35_000);
    assert.equal(await statuses(h, 'fragile'), ['00:00:10 failed'], 'no fire after the failure');
    const paused = await h.engine.schedules.describe('fragile');
    assert.is(paused.state.paused, true);
    assert.match(paused.state.note, /fragile-2026-01-01T00:00:10Z ended failed/);
  } finally {
    h.close();
  }
});

async function errorName(call: () => Promise<unknown>): Promise<string> {
  try {
    await call();
  } catch (error) {
    return (error as Error).name;
  }
  throw new Error('the call was not refused');
}

test('create refuses an id that exists; every call on an unknown id is ScheduleNotFoundError', async () => {
  const h = await durableHarness([quick]);
  try {
    await h.engine.schedules.create(every('once', 10_000));
    assert.is(await errorName(() => h.engine.schedules.create(every('once', 20_000))), 'ScheduleAlreadyExistsError');
    for (const call of [
      () => h.engine.schedules.describe('nope'),
      () => h.engine.schedules.setPaused('nope', true, ''),
      () => h.engine.schedules.trigger('nope', undefined),
      () => h.engine.schedules.delete('nope'),
      () => h.engine.schedules.update(every('nope', 10_000)),
    ]) {
      assert.is(await errorName(call), 'ScheduleNotFoundError');
    }
  } finally {
    h.close();
  }
});

test.run();
