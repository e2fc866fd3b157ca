// A schedule change on Temporal writes only what the request changed (core/domain/schedule.ts mergedScheduleChange):
// a pause applied meanwhile (Temporal's own on a failed run, or another API process's) is not undone by a PATCH of
// another part, which the SDK's update would otherwise write from the state read before.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { idFor, startHarness, stopHarness, type EngineHarness } from './engineHarness.js';

const test = suite<EngineHarness>('TemporalEngine on a real server: schedule updates');

test.before((context) => startHarness(context, 'schedules'));
test.after((context) => stopHarness(context));

test('a change of the input made from a read before a pause keeps the pause; the pause alone is undone only when asked', async (context) => {
  const { engine, client, catalog } = context;
  const scheduleId = idFor(context, 'paused-meanwhile');
  const created = await engine.schedules.create({
    scheduleId,
    workflowName: 'arithmetic',
    catalog,
    input: { n: 1 },
    spec: { calendar: { kind: 'every', everyMs: 3_600_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 0 },
    policy: { overlap: 'skip', catchupWindowMs: 60_000, pauseOnFailure: true },
    paused: false,
    note: '',
  });
  try {
    const base = created.definition;
    // Between the request's read and its write: paused by someone else.
    await client.schedule.getHandle(scheduleId).pause('paused after a failed run');
    const updated = await engine.schedules.update({ ...base, input: { n: 5 } }, 'ci', base);
    assert.equal(updated.definition.input, { n: 5 }, 'the change the request made');
    assert.is(updated.state.paused, true, 'the pause made meanwhile stays');
    assert.is(updated.state.note, 'paused after a failed run');
    const unpaused = await engine.schedules.setPaused(scheduleId, false, 'resumed', 'ci');
    assert.is(unpaused.state.paused, false);
    assert.equal(unpaused.definition.input, { n: 5 });
  } finally {
    await client.schedule.getHandle(scheduleId).delete().catch(() => undefined);
  }
});

test.run();
