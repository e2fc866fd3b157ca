import type { Schedule, ScheduleList } from '../../../adapters/client/index.js';
import { fields, shortJson, table } from './text.js';

/*
 * `flowgate schedule` output for people (docs/cli.md, Schedule commands): a schedule's description, and a page of
 * schedules as a table. --json prints the API's answers instead.
 */

/** `flowgate schedule describe` (and what create prints): the schedule's fields, its next fire times, its recent runs. */
export function renderSchedule(schedule: Schedule): string {
  const { spec, policy } = schedule;
  const head = fields([
    ['schedule', schedule.scheduleId],
    ['workflow', schedule.workflowName],
    ['catalog', schedule.catalog],
    ['input', shortJson(schedule.input, 100)],
    ...specFields(schedule),
    ['timezone', spec.timezone],
    ['start', spec.startAt ?? '-'],
    ['end', spec.endAt ?? '-'],
    ['jitter', spec.jitterSeconds > 0 ? secondsText(spec.jitterSeconds) : 'none'],
    ['overlap', policy.overlap],
    ['catch-up window', secondsText(policy.catchupWindowSeconds)],
    ['pause on failure', policy.pauseOnFailure ? 'yes' : 'no'],
    ['state', schedule.paused ? 'paused' : 'active'],
    ['note', schedule.note === '' ? '-' : schedule.note],
    ['actions', `${schedule.actionCount} started, ${schedule.missedCount} missed`],
    ['running', schedule.runningRuns.length === 0 ? 'none' : schedule.runningRuns.map((run) => `${run.workflowId} run ${run.runId}`).join(', ')],
    ['created', byWhom(schedule.createdAt, schedule.createdBy)],
    ['updated', byWhom(schedule.updatedAt, schedule.updatedBy)],
  ]);
  const next =
    schedule.nextFireTimes.length === 0
      ? `next fire times: ${schedule.paused ? 'none while paused' : 'none'}\n`
      : `next fire times:\n${schedule.nextFireTimes.map((time) => `  ${time}\n`).join('')}`;
  const recent =
    schedule.recentActions.length === 0
      ? 'recent actions: none\n'
      : `recent actions (newest last):\n${table(
          ['SCHEDULED', 'STARTED', 'WORKFLOW ID', 'RUN ID'],
          schedule.recentActions.map((action) => [action.scheduledAt, action.startedAt, action.workflowId, action.runId]),
        )}`;
  return head + next + recent;
}

/** One page of schedules by id, and how to get the next page. */
export function renderScheduleList(list: ScheduleList): string {
  const more = list.nextPageToken ? `next page: --page-token ${list.nextPageToken}\n` : '';
  // A key limited to some workflows can get an empty page with more after it (docs/schedules.md).
  if (list.schedules.length === 0) return (more ? 'no schedules on this page\n' : 'no schedules\n') + more;
  const rows = list.schedules.map((schedule) => [
    schedule.scheduleId,
    schedule.workflowName,
    schedule.paused ? 'paused' : 'active',
    schedule.nextFireTimes[0] ?? '-',
    String(schedule.actionCount),
    whenText(schedule),
  ]);
  return table(['SCHEDULE', 'WORKFLOW', 'STATE', 'NEXT FIRE', 'ACTIONS', 'WHEN'], rows) + more;
}

/** The spec's calendar as the describe lines: `cron` (one line per expression), or `every` and its `offset`. */
function specFields(schedule: Schedule): [string, string][] {
  const { cron, every, offset } = schedule.spec;
  if (cron !== undefined) return cron.map((expression) => ['cron', expression]);
  return [
    ['every', every ?? '-'],
    ['offset', offset ?? '-'],
  ];
}

/** The calendar in one cell: `cron 30 2 * * * (Europe/Berlin)`, `every 1h offset 15m`. */
function whenText(schedule: Schedule): string {
  const { cron, every, offset, timezone } = schedule.spec;
  if (cron !== undefined) return `cron ${cron.join(' | ')}${timezone === 'UTC' ? '' : ` (${timezone})`}`;
  return `every ${every ?? '?'}${offset && !/^0+[smhd]?$/.test(offset) ? ` offset ${offset}` : ''}`;
}

function byWhom(at: string, key: string | undefined): string {
  return key === undefined ? at : `${at} by ${key}`;
}

/** Seconds as the CLI's options take them: `45s`, `1h30m`, `365d`; a fraction stays in seconds (`2.5s`). */
export function secondsText(seconds: number): string {
  if (!Number.isInteger(seconds)) return `${seconds}s`;
  if (seconds === 0) return '0s';
  const parts: [number, string][] = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'm'],
    [seconds % 60, 's'],
  ];
  return parts
    .filter(([amount]) => amount > 0)
    .map(([amount, unit]) => `${amount}${unit}`)
    .join('');
}
