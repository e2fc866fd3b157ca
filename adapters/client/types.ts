import type { z } from 'zod';
import type {
  BulkCancelBodySchema,
  BulkControlResponseSchema,
  BulkRerunBodySchema,
  BulkRerunResponseSchema,
  BulkTerminateBodySchema,
  createRunWorkflowBodySchema,
  CreateScheduleBodySchema,
  FeedbackResponseSchema,
  HistoryDoneSchema,
  HistoryEventSchema,
  HistoryPageSchema,
  HistoryProgressSchema,
  InputViewSchema,
  KeyDescriptionSchema,
  ReadinessSchema,
  RerunBodySchema,
  RerunResponseSchema,
  ResetBodySchema,
  ResetResponseSchema,
  RunListSchema,
  RunStatusViewSchema,
  ScheduleBackfillBodySchema,
  ScheduleFiresSchema,
  ScheduleListSchema,
  ScheduleViewSchema,
  StartResponseSchema,
  StartWorkflowBodySchema,
  StopResponseSchema,
  TerminateResponseSchema,
  TraceLogSchema,
  UpdateScheduleBodySchema,
  WorkflowListSchema,
  WorkflowResultLegacySchema,
  WorkflowResultSchema,
  WorkflowResultV2Schema,
} from '../../core/api/wire/index.js';
import type {
  ErrorBodySchema,
  HealthSchema,
  HistoryQuerySchema,
  ListRunsQuerySchema,
  ListSchedulesQuerySchema,
  ValidationIssueSchema,
} from '../http/schemas/index.js';

/*
 * The wire types, inferred from the zod schemas that validate the server's requests and build its OpenAPI document
 * (core/api/wire, and adapters/http/schemas for what only HTTP has: queries, error bodies): requests as a client may
 * send them (`z.input`: defaulted fields optional), answers as the server produces them (`z.output`). Type-only
 * imports: the client loads none of the schemas at run time.
 */

export type RunWorkflowRequest = z.input<ReturnType<typeof createRunWorkflowBodySchema>>;
export type StartWorkflowRequest = z.input<typeof StartWorkflowBodySchema>;
export type ResetRequest = z.input<typeof ResetBodySchema>;
export type BulkTerminateRequest = z.input<typeof BulkTerminateBodySchema>;
export type BulkCancelRequest = z.input<typeof BulkCancelBodySchema>;
/**
 * A query as a client sends it. A field the server preprocesses (a number read from the query string) has `unknown` as
 * its input side; its output side is what to send.
 */
type QueryOf<S extends z.ZodType> = {
  [K in keyof z.input<S>]?: (unknown extends z.input<S>[K] ? z.output<S>[K & keyof z.output<S>] : z.input<S>[K]) | undefined;
};
export type ListRunsQuery = QueryOf<typeof ListRunsQuerySchema>;
export type HistoryQuery = QueryOf<typeof HistoryQuerySchema>;

export type WorkflowResult = z.output<typeof WorkflowResultSchema>;
export type WorkflowResultV2 = z.output<typeof WorkflowResultV2Schema>;
export type WorkflowResultLegacy = z.output<typeof WorkflowResultLegacySchema>;
export type StartResponse = z.output<typeof StartResponseSchema>;
export type WorkflowList = z.output<typeof WorkflowListSchema>;
export type FeedbackResponse = z.output<typeof FeedbackResponseSchema>;
export type RunList = z.output<typeof RunListSchema>;
export type RunStatusView = z.output<typeof RunStatusViewSchema>;
export type InputView = z.output<typeof InputViewSchema>;
export type HistoryPage = z.output<typeof HistoryPageSchema>;
export type HistoryEvent = z.output<typeof HistoryEventSchema>;
export type HistoryProgress = z.output<typeof HistoryProgressSchema>;
export type HistoryDone = z.output<typeof HistoryDoneSchema>;
export type StopResponse = z.output<typeof StopResponseSchema>;
export type TerminateResponse = z.output<typeof TerminateResponseSchema>;
export type ResetResponse = z.output<typeof ResetResponseSchema>;
export type BulkControlResponse = z.output<typeof BulkControlResponseSchema>;
export type TraceLog = z.output<typeof TraceLogSchema>;
export type Readiness = z.output<typeof ReadinessSchema>;
export type Health = z.output<typeof HealthSchema>;
/** GET /auth/key: what the calling API key may do (docs/security.md). */
export type KeyDescription = z.output<typeof KeyDescriptionSchema>;
export type ErrorBody = z.output<typeof ErrorBodySchema>;
export type ValidationIssue = z.output<typeof ValidationIssueSchema>;

/** POST /workflow/{id}/runs/{rid}/rerun and POST /workflow/runs/rerun (docs/api.md, docs/bulk.md). */
export type RerunRequest = z.input<typeof RerunBodySchema>;
export type RerunResponse = z.output<typeof RerunResponseSchema>;
export type BulkRerunRequest = z.input<typeof BulkRerunBodySchema>;
export type BulkRerunResponse = z.output<typeof BulkRerunResponseSchema>;

/** The schedule endpoints (docs/schedules.md). */
export type CreateScheduleRequest = z.input<typeof CreateScheduleBodySchema>;
export type UpdateScheduleRequest = z.input<typeof UpdateScheduleBodySchema>;
export type ListSchedulesQuery = QueryOf<typeof ListSchedulesQuerySchema>;
export type ScheduleBackfillRequest = z.input<typeof ScheduleBackfillBodySchema>;
export type Schedule = z.output<typeof ScheduleViewSchema>;
export type ScheduleList = z.output<typeof ScheduleListSchema>;
export type ScheduleFires = z.output<typeof ScheduleFiresSchema>;
export type OverlapPolicy = Schedule['policy']['overlap'];

/** What every call takes besides its own fields. */
export interface CallOptions {
  /** Aborts the call, its retries and waits; the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Sent as `X-Request-Id` (1 to 200 of `A-Z a-z 0-9 . _ : -`); the server generates one otherwise. */
  requestId?: string | undefined;
}

/** Calls the server makes safe to retry with an `Idempotency-Key` (docs/idempotency.md). */
export interface KeyedCallOptions extends CallOptions {
  /** The key for this call; a fresh UUID by default, `false` to send none. Every retry of the call reuses it. */
  idempotencyKey?: string | false | undefined;
}
