import type { z } from 'zod';
import type {
  BulkControlResponseSchema,
  BulkRerunResponseSchema,
  HistoryDoneSchema,
  HistoryEventSchema,
  HistoryPageSchema,
  HistoryProgressSchema,
  InputViewSchema,
  KeyDescriptionSchema,
  LegacyErrorDetailsSchema,
  ReadinessSchema,
  RerunOfSchema,
  RerunResponseSchema,
  ResultVersionSchema,
  RunListSchema,
  RunStatusViewSchema,
  StartResponseSchema,
  TerminateResponseSchema,
  TraceLogSchema,
  WorkflowListSchema,
  WorkflowResultLegacySchema,
  WorkflowResultSchema,
  WorkflowResultV2Schema,
} from './wire/index.js';

/*
 * What the use cases answer, as the wire carries it: each type is inferred from its schema in core/api/wire, the one
 * declaration of the API's shapes (docs/architecture.md), so a use case that answers another shape fails to compile.
 */

/** GET /auth/key (docs/security.md). */
export type KeyDescription = z.output<typeof KeyDescriptionSchema>;

/**
 * What a call that changes something answers: `answer` is its response; `expiresAt` is set when the call carried an
 * idempotency key (IdempotencyOptions) and says until when a retry with that key gets this same answer.
 */
export interface Answer<T> {
  answer: T;
  expiresAt?: Date;
}

/** Status response, run-list item and history metadata (docs/api.md). Times are ISO 8601 UTC. */
export type RunStatusView = z.output<typeof RunStatusViewSchema>;

/** Workflow result, version 2: exactly these keys. */
export type WorkflowResultV2 = z.output<typeof WorkflowResultV2Schema>;
export type LegacyErrorDetails = z.output<typeof LegacyErrorDetailsSchema>;
/** Workflow result, legacy (deprecated): exactly these keys. */
export type WorkflowResultLegacy = z.output<typeof WorkflowResultLegacySchema>;
export type ResultVersion = z.output<typeof ResultVersionSchema>;
export type WorkflowResult = z.output<typeof WorkflowResultSchema>;

export type StartView = z.output<typeof StartResponseSchema>;
/** A run, by its ids: what stop, feedback and reset answer, and the run a rerun repeats. */
export type RunRefView = z.output<typeof RerunOfSchema>;
export type TerminateView = z.output<typeof TerminateResponseSchema>;
export type InputView = z.output<typeof InputViewSchema>;
export type RunListView = z.output<typeof RunListSchema>;
export type HistoryPageView = z.output<typeof HistoryPageSchema>;
export type HistoryEventView = z.output<typeof HistoryEventSchema>;
/** A step's report (docs/progress.md); not part of the history. */
export type ProgressView = z.output<typeof HistoryProgressSchema>;

/** One item of a history stream; the HTTP adapter frames these as server-sent events. */
export type HistoryStreamItem =
  | { event: 'workflow'; data: RunStatusView }
  | { event: 'history'; id: number; data: HistoryEventView }
  /** `id`: the stream position after it (core/domain/progress.ts), for Last-Event-ID. */
  | { event: 'progress'; id: string; data: ProgressView }
  /**
   * `id: ''` (an empty `id:` line) on the latest-run URL once another run is the latest: the client's Last-Event-ID is
   * cleared, so its reconnect streams that run from its start instead of resuming it after this run's ids.
   */
  | { event: 'done'; id?: ''; data: z.output<typeof HistoryDoneSchema> };

/** `data` is absent when the stored object is not a readable trace and no local copy is (docs/api.md, Trace log). */
export type TraceLogView = z.output<typeof TraceLogSchema>;
export type ReadinessView = z.output<typeof ReadinessSchema>;

/**
 * The workflow types of a catalog, each with the JSON Schemas (draft 2020-12) its input, output and, when it
 * declares one, webhook replies (POST /workflow/feedback `payload`) are checked against.
 */
export type WorkflowListView = z.output<typeof WorkflowListSchema>;
export type WorkflowListEntry = WorkflowListView['workflows'][number];

export type BulkControlView = z.output<typeof BulkControlResponseSchema>;
/** One run a bulk operation could not act on, with the error a single call would have answered. */
export type BulkFailureView = BulkControlView['failures'][number];

/** A rerun's answer: the new run, as POST /workflow answers, and the run it repeats. */
export type RerunView = z.output<typeof RerunResponseSchema>;
export type BulkRerunView = z.output<typeof BulkRerunResponseSchema>;
