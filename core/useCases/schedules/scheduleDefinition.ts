import type { CreateScheduleRequest, SchedulePolicyRequest, ScheduleSpecRequest, UpdateScheduleRequest } from '../../api/scheduleRequests.js';
import {
  DEFAULT_CATCHUP_WINDOW_SECONDS,
  invalidSchedule,
  parseDuration,
  SCHEDULE_ID_PATTERN,
  SCHEDULE_ID_RULE,
  scheduleProblems,
  type ScheduleCalendar,
  type ScheduleDefinition,
  type ScheduleIssue,
  type SchedulePolicy,
  type ScheduleSpec,
} from '../../domain/schedule.js';

/** A create request as a definition, or ValidationError naming every rule it breaks. */
export function definitionOf(request: CreateScheduleRequest, defaultCatalog: string): ScheduleDefinition {
  const issues: ScheduleIssue[] = [];
  if (!SCHEDULE_ID_PATTERN.test(request.scheduleId)) issues.push({ path: ['scheduleId'], message: `scheduleId ${SCHEDULE_ID_RULE}` });
  const spec = specOf(request.spec, issues);
  const policy = policyOf(request.policy, undefined);
  return checked(
    {
      scheduleId: request.scheduleId,
      workflowName: request.workflowName,
      catalog: request.catalog ?? defaultCatalog,
      input: request.input ?? null,
      spec,
      policy,
      paused: request.paused ?? false,
      note: request.note ?? '',
    },
    issues,
  );
}

/** The definition a PATCH makes of the current one. */
export function updatedDefinition(current: ScheduleDefinition, request: UpdateScheduleRequest): ScheduleDefinition {
  const issues: ScheduleIssue[] = [];
  return checked(
    {
      scheduleId: current.scheduleId,
      workflowName: request.workflowName ?? current.workflowName,
      catalog: request.catalog ?? current.catalog,
      input: request.input === undefined ? current.input : request.input,
      spec: request.spec === undefined ? current.spec : specOf(request.spec, issues),
      policy: policyOf(request.policy, current.policy),
      paused: request.paused ?? current.paused,
      note: request.note ?? current.note,
    },
    issues,
  );
}

function checked(definition: ScheduleDefinition, issues: ScheduleIssue[]): ScheduleDefinition {
  issues.push(...scheduleProblems(definition.spec, definition.policy));
  if (issues.length > 0) throw invalidSchedule(issues);
  return definition;
}

function specOf(request: ScheduleSpecRequest, issues: ScheduleIssue[]): ScheduleSpec {
  return {
    calendar: calendarOf(request, issues),
    timezone: request.timezone ?? 'UTC',
    startAt: timeOf(request.startAt, ['spec', 'startAt'], issues),
    endAt: timeOf(request.endAt, ['spec', 'endAt'], issues),
    jitterMs: Math.round((request.jitterSeconds ?? 0) * 1000),
  };
}

function calendarOf(request: ScheduleSpecRequest, issues: ScheduleIssue[]): ScheduleCalendar {
  const cron = typeof request.cron === 'string' ? [request.cron] : request.cron;
  if ((cron === undefined) === (request.every === undefined)) {
    issues.push({ path: ['spec'], message: 'spec needs exactly one of cron and every' });
    return { kind: 'cron', expressions: cron ?? [] };
  }
  if (cron !== undefined) {
    if (cron.length === 0) issues.push({ path: ['spec', 'cron'], message: 'cron needs at least one expression' });
    if (request.offset !== undefined) issues.push({ path: ['spec', 'offset'], message: 'offset belongs to an every schedule' });
    return { kind: 'cron', expressions: [...cron] };
  }
  return { kind: 'every', everyMs: durationOf(request.every!, ['spec', 'every'], issues), offsetMs: durationOf(request.offset ?? '0s', ['spec', 'offset'], issues) };
}

function durationOf(text: string, path: string[], issues: ScheduleIssue[]): number {
  const ms = parseDuration(text);
  if (ms !== undefined) return ms;
  issues.push({ path, message: `${path[path.length - 1]} "${text}" is not a duration such as 30s, 15m, 1h30m or 1d` });
  return 1000;
}

function timeOf(text: string | undefined, path: string[], issues: ScheduleIssue[]): Date | undefined {
  if (text === undefined) return undefined;
  const time = new Date(text);
  if (Number.isNaN(time.getTime())) issues.push({ path, message: `${path[path.length - 1]} "${text}" is not an ISO 8601 time` });
  return time;
}

function policyOf(request: SchedulePolicyRequest | undefined, current: SchedulePolicy | undefined): SchedulePolicy {
  return {
    overlap: request?.overlap ?? current?.overlap ?? 'skip',
    catchupWindowMs: request?.catchupWindowSeconds === undefined ? (current?.catchupWindowMs ?? DEFAULT_CATCHUP_WINDOW_SECONDS * 1000) : request.catchupWindowSeconds * 1000,
    pauseOnFailure: request?.pauseOnFailure ?? current?.pauseOnFailure ?? false,
  };
}
