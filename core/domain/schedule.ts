import { ScheduleAlreadyExistsError, ScheduleNotFoundError, ValidationError, type ErrorDetails } from './errors.js';
import type { PinnedRunRef } from './run.js';

/*
 * Schedules (docs/schedules.md): a workflow started on a calendar or an interval, by the engine itself. The types and
 * pure rules both engines share; fire times themselves are computed by a library (adapters/schedules) or by Temporal.
 */

/** What a fire does while a run the schedule started is still open (Temporal's overlap policies, by the same names). */
export const OVERLAP_POLICIES = ['skip', 'buffer_one', 'buffer_all', 'cancel_other', 'terminate_other', 'allow_all'] as const;
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/** A schedule id: a plain name, since it begins the workflow id of every run it starts. */
export const SCHEDULE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
export const SCHEDULE_ID_RULE = 'is 1 to 200 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** Temporal refuses a shorter catch-up window; both engines use its floor and its default (one year). */
export const MIN_CATCHUP_WINDOW_SECONDS = 10;
export const DEFAULT_CATCHUP_WINDOW_SECONDS = 365 * 24 * 3600;
/** How many fire times and actions a description lists. */
export const LISTED_FIRE_TIMES = 10;
export const LISTED_ACTIONS = 10;
/** The longest `every` (and offset) a schedule takes: ten years keeps every fire time within what a date can hold. */
export const MAX_INTERVAL_MS = 3650 * 86_400_000;
/** A backfill fires at most this many times: a wider range is refused, not started in part. */
export const MAX_BACKFILL_FIRES = 1000;

/** When a schedule fires: cron expressions, or an interval counted from the Unix epoch plus an offset. */
export type ScheduleCalendar = { kind: 'cron'; expressions: readonly string[] } | { kind: 'every'; everyMs: number; offsetMs: number };

export interface ScheduleSpec {
  calendar: ScheduleCalendar;
  /** IANA time zone the cron fields are read in (an interval does not depend on it). */
  timezone: string;
  startAt?: Date | undefined;
  endAt?: Date | undefined;
  /** Each fire is delayed by a random amount below this (0: none). */
  jitterMs: number;
}

export interface SchedulePolicy {
  overlap: OverlapPolicy;
  /** Fires missed (engine down, or paused) by more than this are dropped, not started late. */
  catchupWindowMs: number;
  /** A run the schedule started that fails or times out pauses the schedule. */
  pauseOnFailure: boolean;
}

/** Everything a schedule is told: what create takes, and what update replaces. */
export interface ScheduleDefinition {
  scheduleId: string;
  workflowName: string;
  catalog: string;
  input: unknown;
  spec: ScheduleSpec;
  policy: SchedulePolicy;
  paused: boolean;
  note: string;
}

/**
 * What an update writes: `requested` was made from `base` (what the schedule was when the request read it); each
 * part it left as `base` had it takes what the schedule has now (`latest`), so a change made meanwhile (another
 * request's, or Temporal pausing the schedule on a failed run) is not undone by a request that did not touch it.
 * The spec is one part (a PATCH replaces it whole); the policy's fields are parts each.
 */
export function mergedScheduleChange(requested: ScheduleDefinition, base: ScheduleDefinition, latest: ScheduleDefinition): ScheduleDefinition {
  const pick = <K extends keyof ScheduleDefinition>(key: K): ScheduleDefinition[K] => (sameValue(requested[key], base[key]) ? latest[key] : requested[key]);
  const policyPart = <K extends keyof SchedulePolicy>(key: K): SchedulePolicy[K] =>
    sameValue(requested.policy[key], base.policy[key]) ? latest.policy[key] : requested.policy[key];
  return {
    scheduleId: requested.scheduleId,
    workflowName: pick('workflowName'),
    catalog: pick('catalog'),
    input: pick('input'),
    spec: pick('spec'),
    policy: { overlap: policyPart('overlap'), catchupWindowMs: policyPart('catchupWindowMs'), pauseOnFailure: policyPart('pauseOnFailure') },
    paused: pick('paused'),
    note: pick('note'),
  };
}

/** Equal as JSON values (dates as their ISO strings): both sides are built the same way, key order included. */
function sameValue(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** One fire the schedule acted on: when it was due, when it started its run, and the run. */
export interface ScheduleAction {
  scheduledAt: Date;
  startedAt: Date;
  run: PinnedRunRef;
}

export interface ScheduleState {
  paused: boolean;
  note: string;
  /** Runs started so far. */
  actionCount: number;
  /** Fires dropped: past the catch-up window, or skipped by the overlap policy. */
  missedCount: number;
  /** The next fire times (at most LISTED_FIRE_TIMES), none while paused; jitter included (when each fire will happen). */
  nextFireTimes: Date[];
  /** The latest actions, newest last (at most LISTED_ACTIONS). */
  recentActions: ScheduleAction[];
  /** Runs the schedule started that are still open. */
  runningRuns: PinnedRunRef[];
}

/** A schedule as the engine reports it. */
export interface ScheduleDescription {
  definition: ScheduleDefinition;
  state: ScheduleState;
  createdAt: Date;
  updatedAt: Date;
  /** The API keys that created and last changed it (docs/security.md, Who did what); absent when no key did. */
  createdBy?: string | undefined;
  updatedBy?: string | undefined;
}

/** `<scheduleId>-<fire time, ISO 8601 UTC to the second>`: Temporal's own naming of a scheduled run, on both engines. */
export function scheduledWorkflowId(scheduleId: string, scheduledAt: Date): string {
  return `${scheduleId}-${new Date(Math.floor(scheduledAt.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z')}`;
}

const DURATION = /^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
const UNIT_MS = [86_400_000, 3_600_000, 60_000, 1_000] as const;

/** `30s`, `15m`, `1h30m`, `1d` in milliseconds; undefined for anything else (or nothing). */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null || text === '') return undefined;
  return UNIT_MS.reduce((total, unit, index) => total + Number(match[index + 1] ?? 0) * unit, 0);
}

/** The shortest spelling parseDuration reads back: 5_400_000 → `1h30m`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  let rest = Math.round(ms / 1000) * 1000;
  let text = '';
  for (const [index, unit] of UNIT_MS.entries()) {
    const count = Math.floor(rest / unit);
    rest -= count * unit;
    if (count > 0) text += `${count}${'dhms'[index]}`;
  }
  return text;
}

/** Whether the runtime knows this IANA time zone (`UTC` included). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

export interface ScheduleIssue {
  path: (string | number)[];
  message: string;
}

/** The rules a spec and a policy keep beyond their shapes; empty when they hold. */
export function scheduleProblems(spec: ScheduleSpec, policy: SchedulePolicy): ScheduleIssue[] {
  const issues: ScheduleIssue[] = [];
  const { calendar } = spec;
  if (calendar.kind === 'every') {
    if (calendar.everyMs < 1000) issues.push({ path: ['spec', 'every'], message: 'every must be at least 1s' });
    if (calendar.everyMs > MAX_INTERVAL_MS) issues.push({ path: ['spec', 'every'], message: 'every must be at most 3650d' });
    if (calendar.offsetMs >= calendar.everyMs) issues.push({ path: ['spec', 'offset'], message: 'offset must be shorter than every' });
  }
  if (!isTimeZone(spec.timezone)) issues.push({ path: ['spec', 'timezone'], message: `timezone "${spec.timezone}" is not an IANA time zone this server knows` });
  if (spec.startAt && spec.endAt && spec.endAt.getTime() <= spec.startAt.getTime()) {
    issues.push({ path: ['spec', 'endAt'], message: 'endAt must be later than startAt' });
  }
  if (policy.catchupWindowMs < MIN_CATCHUP_WINDOW_SECONDS * 1000) {
    issues.push({ path: ['policy', 'catchupWindowSeconds'], message: `catchupWindowSeconds must be at least ${MIN_CATCHUP_WINDOW_SECONDS}` });
  }
  return issues;
}

/** 400 ValidationError carrying the issues (the first one's message leads). */
export function invalidSchedule(issues: readonly ScheduleIssue[]): InstanceType<typeof ValidationError> {
  return new ValidationError(issues.map((issue) => issue.message).join('; '), {
    issues: issues.map((issue) => ({ code: 'invalid_schedule', path: issue.path, message: issue.message })),
  });
}

/** Whether `time` lies within the spec's start and end (both inclusive, as Temporal reads them). */
export function withinBounds(spec: Pick<ScheduleSpec, 'startAt' | 'endAt'>, time: Date): boolean {
  if (spec.startAt && time.getTime() < startSecond(spec.startAt)) return false;
  return !(spec.endAt && time.getTime() > spec.endAt.getTime());
}

/**
 * The whole second `startAt` falls in: fire times are whole seconds, and Temporal's scheduler lets the fire time of the
 * start's own second fire (docs/schedules.md, Time). Taken exactly, a start within a second would bound the search for
 * fire times with a time no fire time can equal.
 */
export function startSecond(startAt: Date): number {
  return Math.floor(startAt.getTime() / 1000) * 1000;
}

/** 404: no schedule of that id, on every engine in the same words. */
export function scheduleNotFound(scheduleId: string, details: ErrorDetails = {}): InstanceType<typeof ScheduleNotFoundError> {
  return new ScheduleNotFoundError(`No schedule "${scheduleId}"`, details);
}

/** 409 of a create whose id exists. */
export function scheduleExists(scheduleId: string, details: ErrorDetails = {}): InstanceType<typeof ScheduleAlreadyExistsError> {
  return new ScheduleAlreadyExistsError(`Schedule "${scheduleId}" exists already`, details);
}

/** 400 of a backfill whose range holds more than MAX_BACKFILL_FIRES fire times (nothing is fired). */
export function backfillTooLong(): InstanceType<typeof ValidationError> {
  return invalidSchedule([{ path: ['startAt'], message: `the range holds more than ${MAX_BACKFILL_FIRES} fire times; backfill a shorter one` }]);
}
