import type { OverlapPolicy } from '../domain/schedule.js';
import type { RunRefView } from './views.js';

/** A schedule's spec as it reads back: durations as text, times ISO 8601 UTC. Exactly one of `cron` and `every`. */
export interface ScheduleSpecView {
  cron?: string[];
  every?: string;
  offset?: string;
  timezone: string;
  startAt: string | null;
  endAt: string | null;
  jitterSeconds: number;
}

export interface SchedulePolicyView {
  overlap: OverlapPolicy;
  catchupWindowSeconds: number;
  pauseOnFailure: boolean;
}

export interface ScheduleActionView {
  scheduledAt: string;
  startedAt: string;
  workflowId: string;
  runId: string;
}

/** GET /schedules/{id} and what every change answers (docs/schedules.md). */
export interface ScheduleView {
  scheduleId: string;
  workflowName: string;
  catalog: string;
  input: unknown;
  spec: ScheduleSpecView;
  policy: SchedulePolicyView;
  paused: boolean;
  note: string;
  actionCount: number;
  missedCount: number;
  nextFireTimes: string[];
  /** Newest last. */
  recentActions: ScheduleActionView[];
  runningRuns: RunRefView[];
  createdAt: string;
  updatedAt: string;
  createdBy?: string;
  updatedBy?: string;
}

export interface ScheduleListView {
  schedules: ScheduleView[];
  nextPageToken: string | null;
}

/** What trigger and backfill answer: the fires are handed to the engine, whose runs appear as they start. */
export interface ScheduleFiresView {
  scheduleId: string;
  /** trigger: 1; backfill: the fire times in the range. */
  fires: number;
}
