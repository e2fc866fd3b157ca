import { currentFeedbackWait, trackFeedbackWaits, type FeedbackWait } from '../../core/domain/feedbackWaits.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import type { ProgressEvent } from '../../core/domain/progress.js';
import type { TraceStep } from '../../core/domain/trace.js';

/*
 * A run's timeline: one row per step call, timer, child run and wait for feedback, each with a bar per attempt (a
 * wait's bar spans from when it began to the reply that served it, or to its end), built from the history
 * (live, both engines) and enriched by the trace once the run has closed (cost, tokens, HTTP calls, attempts the
 * history does not show). Pure: tests/unit checks it against hand-written histories of both engines' shapes.
 */

export type RowKind = 'step' | 'evaluator' | 'internal_step' | 'timer' | 'child' | 'feedback';
export type RowState = 'scheduled' | 'running' | 'completed' | 'failed';

export interface AttemptBar {
  /** The attempt's number; for `earlier`, the last of the attempts it stands for. */
  attempt: number;
  startedAt: number;
  /** Undefined while it runs. */
  endedAt: number | undefined;
  outcome: 'running' | 'completed' | 'failed';
  /** Attempts the history does not show one by one (Temporal records only the last): known from the trace. */
  earlier?: boolean;
}

export interface TimelineRow {
  key: string;
  kind: RowKind;
  name: string;
  /** The history event that began the row (a step's `step_scheduled`, which its progress events name). */
  eventId: number;
  scheduledAt: number;
  state: RowState;
  attempts: AttemptBar[];
  /** Highest attempt number known from history, progress or trace. */
  attemptCount: number;
  endedAt: number | undefined;
  input?: unknown;
  output?: unknown;
  error?: unknown;
  /** The latest progress the step reported. */
  progress?: ProgressEvent;
  aggregations?: { totalCost: number; httpCalls: number; tokens: number };
  child?: { workflowId: string; runId: string; workflowName: string };
  timerMs?: number;
  /** A wait for feedback (core/domain/feedbackWaits.ts): when it began, its time limit, how it ended. */
  wait?: FeedbackWait;
  /** Copied from the run a reset started from: it ran there, before this run began (history before `workflow_reset`). */
  replayed?: boolean;
}

const STEP_KINDS = new Set(['step', 'evaluator', 'internal_step']);

export function buildTimeline(events: readonly HistoryEvent[], progress: readonly ProgressEvent[] = [], trace: readonly TraceStep[] = []): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const byKey = new Map<string, TimelineRow>();
  const add = (row: TimelineRow) => {
    rows.push(row);
    byKey.set(row.key, row);
  };
  let waits: readonly FeedbackWait[] = [];
  /** Temporal's timers of waits with a time limit: the wait's row stands for them. */
  const waitTimers = new Set<string>();
  let previous: HistoryEvent | undefined;
  for (const event of events) {
    const at = Date.parse(event.time);
    const attributes = event.attributes;
    waits = trackFeedbackWaits(waits, event);
    const before = previous;
    previous = event;
    switch (event.type) {
      case 'step_scheduled': {
        const kind = typeof attributes.kind === 'string' && STEP_KINDS.has(attributes.kind) ? (attributes.kind as RowKind) : 'step';
        add({ key: `step:${event.eventId}`, kind, name: event.stepName ?? String(attributes.activityType ?? 'step'), eventId: event.eventId, scheduledAt: at, state: 'scheduled', attempts: [], attemptCount: 0, endedAt: undefined, input: attributes.input });
        break;
      }
      case 'step_started': {
        const attempt = numberOr(attributes.attempt, 1);
        const row = rowAwaitingAttempt(rows, event.stepName, attempt);
        if (!row) break;
        row.attempts.push({ attempt, startedAt: at, endedAt: undefined, outcome: 'running' });
        row.attemptCount = Math.max(row.attemptCount, attempt);
        row.state = 'running';
        break;
      }
      case 'step_completed':
      case 'step_failed': {
        const row = rows.find((candidate) => STEP_KINDS.has(candidate.kind) && candidate.name === event.stepName && candidate.state === 'running');
        if (!row) break;
        const completed = event.type === 'step_completed';
        const current = row.attempts[row.attempts.length - 1];
        if (current) {
          current.endedAt = at;
          current.outcome = completed ? 'completed' : 'failed';
        }
        row.state = completed ? 'completed' : 'failed';
        row.endedAt = at;
        if (completed) {
          row.output = attributes.output;
          // Earlier attempts' failures stay visible as their bars; the call itself succeeded.
          delete row.error;
        } else {
          row.error = attributes.error;
        }
        break;
      }
      case 'feedback_wait_started':
        add({ key: `feedback:${event.eventId}`, kind: 'feedback', name: 'feedback', eventId: event.eventId, scheduledAt: at, state: 'running', attempts: [{ attempt: 1, startedAt: at, endedAt: undefined, outcome: 'running' }], attemptCount: 1, endedAt: undefined });
        break;
      case 'timer_started': {
        const timerMs = numberOr(attributes.durationMs, 0);
        // On Temporal a wait with a time limit starts a timer for it at once, in the same workflow task.
        if (before?.type === 'feedback_wait_started' && before.time === event.time && timerMs === before.attributes.timeoutMs) {
          waitTimers.add(String(attributes.timerId));
          break;
        }
        add({ key: `timer:${event.eventId}`, kind: 'timer', name: 'sleep', eventId: event.eventId, scheduledAt: at, state: 'running', attempts: [{ attempt: 1, startedAt: at, endedAt: undefined, outcome: 'running' }], attemptCount: 1, endedAt: undefined, timerMs });
        break;
      }
      case 'timer_fired': {
        if (waitTimers.has(String(attributes.timerId))) break;
        // Fired timers name no timer: the open one due nearest to now is the one that fired.
        const open = rows.filter((row) => row.kind === 'timer' && row.state === 'running');
        const fired = open.sort((a, b) => Math.abs(a.scheduledAt + (a.timerMs ?? 0) - at) - Math.abs(b.scheduledAt + (b.timerMs ?? 0) - at))[0];
        if (fired) finish(fired, at, 'completed');
        break;
      }
      case 'child_started': {
        const child = { workflowId: String(attributes.childWorkflowId ?? ''), runId: String(attributes.childRunId ?? ''), workflowName: String(attributes.workflowName ?? 'child') };
        add({ key: `child:${child.workflowId}:${child.runId}`, kind: 'child', name: child.workflowName, eventId: event.eventId, scheduledAt: at, state: 'running', attempts: [{ attempt: 1, startedAt: at, endedAt: undefined, outcome: 'running' }], attemptCount: 1, endedAt: undefined, child });
        break;
      }
      case 'child_completed':
      case 'child_failed': {
        const row = byKey.get(`child:${String(attributes.childWorkflowId ?? '')}:${String(attributes.childRunId ?? '')}`);
        if (!row) break;
        finish(row, at, event.type === 'child_completed' ? 'completed' : 'failed');
        if (event.type === 'child_completed') row.output = attributes.output;
        else row.error = attributes.error;
        break;
      }
      case 'workflow_reset':
        for (const row of rows) row.replayed = true;
        break;
      default:
        break;
    }
  }
  for (const report of progress) {
    const row = byKey.get(`step:${report.stepEventId}`);
    if (!row) continue;
    if (!row.progress || report.seq > row.progress.seq) row.progress = report;
    row.attemptCount = Math.max(row.attemptCount, report.attempt);
  }
  for (const wait of waits) {
    const row = byKey.get(`feedback:${wait.eventId}`);
    if (!row) continue;
    row.wait = wait;
    if (wait.endedAt !== undefined) finish(row, Date.parse(wait.endedAt), wait.end === 'feedback' ? 'completed' : 'failed');
  }
  for (const row of rows) showEarlierAttempts(row);
  enrichFromTrace(rows, trace);
  return rows;
}

/**
 * Temporal records only a step's last attempt: when that is attempt 3, attempts 1 and 2 ran (and failed) between the
 * schedule and its start. One bar stands for them, so retries show while the run is live, before any trace.
 */
function showEarlierAttempts(row: TimelineRow): void {
  const first = row.attempts[0];
  if (!STEP_KINDS.has(row.kind) || !first || first.attempt <= 1 || first.earlier) return;
  row.attempts.unshift({ attempt: first.attempt - 1, startedAt: row.scheduledAt, endedAt: first.startedAt, outcome: 'failed', earlier: true });
}

/** A retry's attempt goes to the call whose last attempt failed; a first attempt to the oldest call not started. */
function rowAwaitingAttempt(rows: TimelineRow[], stepName: string | undefined, attempt: number): TimelineRow | undefined {
  const named = rows.filter((row) => STEP_KINDS.has(row.kind) && row.name === stepName);
  if (attempt > 1) {
    const retried = named.find((row) => row.state === 'failed' && row.attemptCount < attempt);
    if (retried) return retried;
  }
  return named.find((row) => row.state === 'scheduled');
}

function finish(row: TimelineRow, at: number, state: 'completed' | 'failed'): void {
  row.state = state;
  row.endedAt = at;
  const current = row.attempts[row.attempts.length - 1];
  if (current) {
    current.endedAt = at;
    current.outcome = state;
  }
}

/**
 * Lines trace steps up with step rows of the same name from the end: a trace lists the calls its run ran, and on
 * Temporal a run started by a reset has in its history the calls it replayed before those.
 */
function enrichFromTrace(rows: TimelineRow[], trace: readonly TraceStep[]): void {
  const traced = new Map<string, TraceStep[]>();
  for (const step of trace) traced.set(step.name, [...(traced.get(step.name) ?? []), step]);
  for (const [name, steps] of traced) {
    const named = rows.filter((row) => STEP_KINDS.has(row.kind) && row.name === name);
    for (let offset = 1; offset <= Math.min(named.length, steps.length); offset += 1) {
      const row = named[named.length - offset]!;
      const step = steps[steps.length - offset]!;
      if (step.aggregations) row.aggregations = step.aggregations;
      if (row.error === undefined && step.error) row.error = step.error;
      row.attemptCount = Math.max(row.attemptCount, step.attempt);
      // The trace knows when the first attempt began; the history only when the call was scheduled.
      const earlier = row.attempts[0]?.earlier ? row.attempts[0] : undefined;
      const startedAt = Date.parse(step.startedAt);
      if (earlier && startedAt >= earlier.startedAt && startedAt < earlier.endedAt!) earlier.startedAt = startedAt;
    }
  }
}

/**
 * The wait for feedback the run is in at `now`, the oldest when it is in several: what the run page says it waits
 * for (since when, with the Send feedback action).
 */
export function currentWait(rows: readonly TimelineRow[], now: number): FeedbackWait | undefined {
  return currentFeedbackWait(rows.flatMap((row) => (row.wait ? [row.wait] : [])), now);
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** The extent of the timeline's axis: from the run's start to its close, or now while it runs. */
export function timelineSpan(rows: readonly TimelineRow[], runStartedAt: number, runEndedAt: number): { start: number; end: number } {
  let start = runStartedAt;
  let end = runEndedAt;
  for (const row of rows) {
    start = Math.min(start, row.scheduledAt, ...row.attempts.map((bar) => bar.startedAt));
    end = Math.max(end, row.endedAt ?? end);
  }
  return { start, end: Math.max(end, start + 1) };
}
