import type { FollowEvent, RunStatusView } from '../../../adapters/client/index.js';
import { currentFeedbackWait, trackFeedbackWaits, type FeedbackWait } from '../../../core/domain/feedbackWaits.js';
import { between, duration, shortJson, table } from './text.js';

/** One step call of the run as `flowgate follow` shows it. */
export interface StepLine {
  /** The `eventId` of its step_scheduled event (what progress events name). */
  scheduledEventId: number;
  name: string;
  state: 'scheduled' | 'running' | 'completed' | 'failed';
  attempt: number;
  scheduledAt: string;
  startedAt?: string;
  endedAt?: string;
  /** The fields of its latest progress report. */
  progress?: Record<string, unknown>;
}

/** What the history stream has told so far about one run. */
export interface FollowView {
  workflow?: RunStatusView;
  steps: StepLine[];
  /** The run's waits for feedback so far (core/domain/feedbackWaits.ts). */
  waits: readonly FeedbackWait[];
  /** The latest event that is not a step's, e.g. `timer_started`. */
  lastEvent?: string;
  /** The run's final status, once the stream's `done` came. */
  closedAs?: string;
  closedAt?: string;
}

export function emptyFollowView(): FollowView {
  return { steps: [], waits: [] };
}

/**
 * The view after one more event: a new value, the old one untouched. A step's later events find their row by the
 * step's name (the first row of that name still open), since only progress carries the scheduled event's id.
 */
export function applyFollowEvent(view: FollowView, event: FollowEvent): FollowView {
  switch (event.event) {
    case 'workflow':
      return { ...view, workflow: event.data };
    case 'done':
      return { ...view, closedAs: event.data.status, closedAt: view.closedAt ?? new Date().toISOString() };
    case 'progress': {
      const { stepEventId, attempt, fields } = event.data;
      return { ...view, steps: view.steps.map((step) => (step.scheduledEventId === stepEventId ? { ...step, attempt, progress: fields } : step)) };
    }
    case 'history': {
      const waits = trackFeedbackWaits(view.waits, event.data);
      if (waits !== view.waits) view = { ...view, waits };
      const { type, stepName, eventId, time, attributes } = event.data;
      const attempt = typeof attributes.attempt === 'number' ? attributes.attempt : undefined;
      if (type === 'step_scheduled') {
        return { ...view, steps: [...view.steps, { scheduledEventId: eventId, name: stepName ?? String(attributes.activityType ?? '?'), state: 'scheduled', attempt: 1, scheduledAt: time }] };
      }
      if (type === 'step_started' || type === 'step_completed' || type === 'step_failed') {
        const index = view.steps.findIndex((step) => step.name === stepName && (step.state === 'scheduled' || step.state === 'running'));
        if (index === -1) return view;
        const step = view.steps[index]!;
        const next: StepLine =
          type === 'step_started'
            ? { ...step, state: 'running', attempt: attempt ?? step.attempt, startedAt: time }
            : { ...step, state: type === 'step_completed' ? 'completed' : 'failed', attempt: attempt ?? step.attempt, endedAt: time };
        return { ...view, steps: view.steps.map((candidate, at) => (at === index ? next : candidate)) };
      }
      const closes = /^workflow_(completed|failed|cancelled|terminated|timed_out|continued_as_new)$/.test(type);
      return { ...view, lastEvent: type, ...(closes ? { closedAt: time } : {}) };
    }
  }
}

/**
 * The compact table `follow` redraws on a terminal: the run, then a line per step call; while the run waits for
 * feedback, since when and how to send it, else its latest other event.
 */
export function renderFollowView(view: FollowView, now: number = Date.now()): string {
  const run = view.workflow;
  const status = view.closedAs ?? run?.status ?? 'connecting';
  const elapsed = run ? duration(between(run.startedAt, view.closedAt ?? run.closedAt, now)) : '-';
  const head = run ? `${run.workflowId}  run ${run.runId}  ${run.workflowName}  ${status}  ${elapsed}` : status;
  const rows = view.steps.map((step) => [
    step.name,
    step.state,
    String(step.attempt),
    step.startedAt || step.endedAt ? duration(between(step.startedAt ?? step.scheduledAt, step.endedAt, now)) : '-',
    step.progress ? shortJson(step.progress, 50) : '',
  ]);
  const steps = rows.length === 0 ? (view.closedAs ? 'no steps\n' : 'no steps yet\n') : table(['STEP', 'STATE', 'ATTEMPT', 'DURATION', 'PROGRESS'], rows);
  const wait = view.closedAs ? undefined : currentFeedbackWait(view.waits, now);
  const last = wait ? waitingLine(wait, run, now) : view.lastEvent && !view.closedAs ? `last event: ${view.lastEvent}\n` : '';
  return `${head}\n${steps}${last}`;
}

function waitingLine(wait: FeedbackWait, run: RunStatusView | undefined, now: number): string {
  const limit = wait.timeoutMs === undefined ? '' : `, time limit ${duration(wait.timeoutMs)}`;
  const send = run ? `; send it with: flowgate feedback ${shellWord(run.workflowId)} --payload JSON` : '';
  return `waiting for feedback since ${wait.startedAt} (${duration(between(wait.startedAt, undefined, now))} so far${limit})${send}\n`;
}

/** A workflow id as one word of a shell command line: quoted unless it is plain. */
function shellWord(text: string): string {
  return /^[\w.:@%+=,/-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
