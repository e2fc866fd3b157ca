import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mergedScheduleChange, type ScheduleDefinition } from '../../../core/domain/schedule.js';

/* What an update writes over the schedule as it is now (docs/schedules.md): the parts the request changed, nothing else. */
const base: ScheduleDefinition = {
  scheduleId: 's',
  workflowName: 'w',
  catalog: 'main',
  input: { n: 1 },
  spec: { calendar: { kind: 'every', everyMs: 60_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 0, startAt: new Date('2026-01-01T00:00:00Z') },
  policy: { overlap: 'skip', catchupWindowMs: 60_000, pauseOnFailure: true },
  paused: false,
  note: '',
};

test('the request\'s changes win; the parts it left take the schedule\'s current values, policy field by field', () => {
  const latest: ScheduleDefinition = { ...base, paused: true, note: 'paused on a failure', policy: { ...base.policy, catchupWindowMs: 5_000 } };
  const requested: ScheduleDefinition = { ...base, input: { n: 2 }, policy: { ...base.policy, overlap: 'allow_all' } };
  assert.equal(mergedScheduleChange(requested, base, latest), {
    ...base,
    input: { n: 2 },
    policy: { overlap: 'allow_all', catchupWindowMs: 5_000, pauseOnFailure: true },
    paused: true,
    note: 'paused on a failure',
  });
});

test('a part changed both meanwhile and by the request takes the request\'s; an unchanged request writes the schedule as it is', () => {
  const latest: ScheduleDefinition = { ...base, input: { n: 9 }, paused: true };
  assert.equal(mergedScheduleChange({ ...base, input: { n: 2 } }, base, latest).input, { n: 2 });
  assert.equal(mergedScheduleChange({ ...base }, base, latest), latest);
  // A spec equal in value (a new Date of the same instant) is no change.
  const sameSpec = { ...base, spec: { ...base.spec, startAt: new Date(base.spec.startAt!.getTime()) } };
  const respecced = { ...latest, spec: { ...base.spec, jitterMs: 1000 } };
  assert.equal(mergedScheduleChange(sameSpec, base, respecced).spec, respecced.spec);
});

test.run();
