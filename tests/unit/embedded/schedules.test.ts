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

test.run();
