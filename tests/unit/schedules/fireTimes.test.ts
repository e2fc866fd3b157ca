import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cronProblem, FireTimes, jitterOf } from '../../../adapters/schedules/fireTimes.js';
import type { ScheduleSpec } from '../../../core/domain/schedule.js';

/*
 * Fire times (docs/schedules.md, Time). The expected times across Europe/Berlin's 2027 daylight-saving changes are
 * what Temporal 1.29.1's own scheduler answered for the same specs (`temporal schedule describe`, futureActionTimes),
 * so the embedded engine fires when Temporal would.
 */
const cron = (expression: string, extra: Partial<ScheduleSpec> = {}): ScheduleSpec => ({
  calendar: { kind: 'cron', expressions: [expression] },
  timezone: 'Europe/Berlin',
  jitterMs: 0,
  ...extra,
});

function upcoming(spec: ScheduleSpec, from: string, count: number): string[] {
  return new FireTimes(spec).upcoming(new Date(Date.parse(from) - 1000), count).map((time) => time.toISOString().replace('.000Z', 'Z'));
}

test('a daily 02:30 skips the spring-forward day (02:30 does not exist) and runs once, at 02:30 standard time, on the fall-back day', () => {
  assert.equal(upcoming(cron('30 2 * * *'), '2027-03-26T00:00:00Z', 4), ['2027-03-26T01:30:00Z', '2027-03-27T01:30:00Z', '2027-03-29T00:30:00Z', '2027-03-30T00:30:00Z']);
  assert.equal(upcoming(cron('30 2 * * *'), '2027-10-29T00:00:00Z', 4), ['2027-10-29T00:30:00Z', '2027-10-30T00:30:00Z', '2027-10-31T01:30:00Z', '2027-11-01T01:30:00Z']);
});

test('an hourly schedule has no run in the skipped hour, and runs the repeated hour once (its first occurrence)', () => {
  assert.equal(upcoming(cron('0 * * * *'), '2027-03-27T22:00:00Z', 6), [
    '2027-03-27T22:00:00Z', '2027-03-27T23:00:00Z', '2027-03-28T00:00:00Z', '2027-03-28T01:00:00Z', '2027-03-28T02:00:00Z', '2027-03-28T03:00:00Z',
  ]);
  assert.equal(upcoming(cron('0 * * * *'), '2027-10-30T22:00:00Z', 6), [
    '2027-10-30T22:00:00Z', '2027-10-30T23:00:00Z', '2027-10-31T00:00:00Z', '2027-10-31T02:00:00Z', '2027-10-31T03:00:00Z', '2027-10-31T04:00:00Z',
  ]);
});

test('a schedule that fires in the hour before a fall-back change meets the repeated hour at its first occurrence', () => {
  assert.equal(upcoming(cron('30 1,2 * * *'), '2027-10-30T00:00:00Z', 4), ['2027-10-30T00:30:00Z', '2027-10-30T23:30:00Z', '2027-10-31T00:30:00Z', '2027-11-01T00:30:00Z']);
  assert.equal(upcoming(cron('30 1,2 * * *'), '2027-03-27T12:00:00Z', 3), ['2027-03-28T00:30:00Z', '2027-03-28T23:30:00Z', '2027-03-29T00:30:00Z']);
});

test('every counts whole intervals from the epoch plus the offset: no drift, whatever the start', () => {
  const every = (everyMs: number, offsetMs: number): ScheduleSpec => ({ calendar: { kind: 'every', everyMs, offsetMs }, timezone: 'UTC', jitterMs: 0 });
  assert.equal(upcoming(every(90 * 60_000, 15 * 60_000), '2026-01-01T00:00:00Z', 3), ['2026-01-01T00:15:00Z', '2026-01-01T01:45:00Z', '2026-01-01T03:15:00Z']);
  const times = new FireTimes(every(2000, 0)).upcoming(new Date('2026-01-01T00:00:00.700Z'), 3).map((time) => time.getTime() % 2000);
  assert.equal(times, [0, 0, 0]);
});

test('startAt and endAt bound the fires, both included; six fields put seconds first', () => {
  const bounded = cron('0 12 * * *', { timezone: 'UTC', startAt: new Date('2026-03-01T12:00:00Z'), endAt: new Date('2026-03-03T12:00:00Z') });
  assert.equal(upcoming(bounded, '2026-01-01T00:00:00Z', 10), ['2026-03-01T12:00:00Z', '2026-03-02T12:00:00Z', '2026-03-03T12:00:00Z']);
  assert.equal(upcoming(cron('*/20 * * * * *', { timezone: 'UTC' }), '2026-01-01T00:00:01Z', 3), ['2026-01-01T00:00:20Z', '2026-01-01T00:00:40Z', '2026-01-01T00:01:00Z']);
  assert.equal(upcoming(cron('@daily', { timezone: 'UTC' }), '2026-01-01T00:00:01Z', 1), ['2026-01-02T00:00:00Z']);
});

test('a startAt within a second bounds the fires from that second, as Temporal does: never no fire time at all', () => {
  const everyMinute: ScheduleSpec = { calendar: { kind: 'every', everyMs: 60_000, offsetMs: 0 }, timezone: 'UTC', jitterMs: 0, startAt: new Date('2026-03-01T12:00:00.500Z') };
  assert.equal(upcoming(everyMinute, '2026-01-01T00:00:00Z', 2), ['2026-03-01T12:00:00Z', '2026-03-01T12:01:00Z']);
  const cronEveryMinute = cron('* * * * *', { timezone: 'UTC', startAt: new Date('2026-03-01T12:00:30.250Z') });
  assert.equal(upcoming(cronEveryMinute, '2026-01-01T00:00:00Z', 2), ['2026-03-01T12:01:00Z', '2026-03-01T12:02:00Z']);
  const onTheSecond = cron('*/20 * * * * *', { timezone: 'UTC', startAt: new Date('2026-03-01T12:00:20.999Z') });
  assert.equal(new FireTimes(onTheSecond).between(new Date('2026-03-01T12:00:00Z'), new Date('2026-03-01T12:01:00Z'), 10).length, 3);
});

test('day of month and day of week must both match (as Temporal reads them)', () => {
  // The 13th that is a Friday.
  assert.equal(upcoming(cron('0 0 13 * 5', { timezone: 'UTC' }), '2026-01-01T00:00:00Z', 2), ['2026-02-13T00:00:00Z', '2026-03-13T00:00:00Z']);
});

test('expressions only one engine would read are refused by name', () => {
  assert.match(cronProblem('0 12 L * *') ?? '', /may use only numbers/);
  assert.match(cronProblem('0 12 * * MON#2') ?? '', /may use only numbers/);
  assert.match(cronProblem('* * * *') ?? '', /needs five fields/);
  assert.match(cronProblem('0 0 1 1 * 2030 x') ?? '', /needs five fields/);
  assert.match(cronProblem('61 * * * *') ?? '', /is not valid/);
  assert.is(cronProblem('*/5 9-17 * * 1-5'), undefined);
});

test('jitter stays below its bound and below the time to the next fire, the same for the same fire every time', () => {
  const nominal = new Date('2026-01-01T00:00:00Z');
  for (let index = 0; index < 200; index += 1) {
    const id = `schedule-${index}`;
    const delay = jitterOf(id, nominal, 30_000, new Date(nominal.getTime() + 60_000));
    assert.ok(delay >= 0 && delay < 30_000, `${id}: ${delay}`);
    assert.is(jitterOf(id, nominal, 30_000, new Date(nominal.getTime() + 60_000)), delay);
    assert.ok(jitterOf(id, nominal, 30_000, new Date(nominal.getTime() + 5_000)) < 5_000);
  }
  assert.is(jitterOf('x', nominal, 0, undefined), 0);
});

test.run();
