import type { RunStatusView, ResultVersion, WorkflowResult, StartView, RunRefView, TerminateView, InputView,
  RunListView, HistoryPageView, HistoryStreamItem, TraceLogView, ReadinessView, WorkflowListView, BulkControlView, Answer,
  BulkRerunView, RerunView } from './views.js';
import type { StartRequest, RunAndWaitRequest, RunAndWaitOptions, ListRunsRequest, HistoryPageRequest, HistoryStreamRequest, ResultWait, BulkControlRequest,
  IdempotencyOptions, BulkRerunRequest, RerunRequest } from './requests.js';
import type { PinnedRunRef, RunRef } from '../domain/run.js';
import type { AccessKey } from '../domain/access.js';
import type { OverlapPolicy } from '../domain/schedule.js';
import type { BackfillRequest, CreateScheduleRequest, ListSchedulesRequest, UpdateScheduleRequest } from './scheduleRequests.js';
import type { ScheduleFiresView, ScheduleListView, ScheduleView } from './scheduleViews.js';

/**
 * Every use case, bound to its ports. This is what a transport (adapters/http) calls; it can also be embedded in
 * another server. Methods throw the named errors of core/domain/errors.ts.
 */
export interface FlowgateApi {
  /*
   * The calls that change something take IdempotencyOptions and answer an Answer: with an `idempotencyKey`
   * (docs/idempotency.md) a retry with the same key and request joins the first call or gets its answer until the
   * answer's `expiresAt`; the same key with another request is IdempotencyKeyReusedError.
   */
  /** Starts and waits up to `timeoutSeconds`; WorkflowExecutionTimedOutError (with workflowId and runId) after that. */
  runAndWait(request: RunAndWaitRequest, version: ResultVersion, options?: RunAndWaitOptions): Promise<Answer<WorkflowResult>>;
  start(request: StartRequest, options?: IdempotencyOptions): Promise<Answer<StartView>>;
  sendFeedback(workflowId: string, payload: unknown, options?: IdempotencyOptions): Promise<Answer<RunRefView>>;
  terminate(run: RunRef, reason: string | undefined, options?: IdempotencyOptions): Promise<Answer<TerminateView>>;
  reset(run: RunRef, stepName: string, reason: string | undefined, options?: IdempotencyOptions): Promise<Answer<RunRefView>>;
  listWorkflows(catalog: string | undefined): Promise<WorkflowListView>;
  stop(run: RunRef): Promise<RunRefView>;
  /**
   * The result of a closed run; WorkflowNotCompletedError (424) while it is open. With `wait.seconds`, an open run
   * is waited on that long first (long-poll); the 424 after it carries a retry hint.
   */
  getResult(run: RunRef, version: ResultVersion, wait?: ResultWait): Promise<WorkflowResult>;
  getStatus(run: RunRef): Promise<RunStatusView>;
  getInput(run: RunRef): Promise<InputView>;
  listRuns(request: ListRunsRequest): Promise<RunListView>;
  historyPage(run: RunRef, request: HistoryPageRequest): Promise<HistoryPageView>;
  /**
   * Resolves once the run is found (so a 404 can still be answered before any event is sent). Empty when the request
   * resumes (`lastEventId`) a closed run after its last event: the client already has the whole history.
   */
  historyStream(run: RunRef, request: HistoryStreamRequest): Promise<AsyncIterable<HistoryStreamItem>>;
  fetchTrace(run: PinnedRunRef): Promise<TraceLogView>;
  readiness(): Promise<ReadinessView>;
  /** Terminates or cancels every run a filter matches (at least one filter); failures per run, not all-or-nothing. */
  bulkControl(action: BulkControlView['action'], request: BulkControlRequest): Promise<BulkControlView>;
  /** Starts a new run of the pinned run's workflow with its input, through the checks of `start`; it records the run it repeats. */
  rerun(run: PinnedRunRef, request: RerunRequest, options?: IdempotencyOptions): Promise<Answer<RerunView>>;
  /** Reruns every run a filter matches (at least one filter), each under a new id; failures per run. */
  bulkRerun(request: BulkRerunRequest): Promise<BulkRerunView>;
  /*
   * Schedules (docs/schedules.md): ScheduleNotFoundError for an unknown id (or one of a workflow the key may not use),
   * ScheduleAlreadyExistsError for a create of an existing id, ValidationError for a spec or input that cannot be.
   */
  createSchedule(request: CreateScheduleRequest): Promise<ScheduleView>;
  listSchedules(request: ListSchedulesRequest): Promise<ScheduleListView>;
  getSchedule(scheduleId: string): Promise<ScheduleView>;
  updateSchedule(scheduleId: string, request: UpdateScheduleRequest): Promise<ScheduleView>;
  deleteSchedule(scheduleId: string): Promise<void>;
  /** Pauses (`paused`) or unpauses; `note` says why (a default names the key). */
  setSchedulePaused(scheduleId: string, paused: boolean, note?: string): Promise<ScheduleView>;
  triggerSchedule(scheduleId: string, overlap?: OverlapPolicy): Promise<ScheduleFiresView>;
  backfillSchedule(scheduleId: string, request: BackfillRequest): Promise<ScheduleFiresView>;
  /**
   * The same use cases acting for an API key (docs/security.md): a key limited to catalogs or workflows sees only
   * their workflows and runs (a run outside them is WorkflowNotFoundError), starts only them (ForbiddenError), and
   * the bulk operations act on and count only them. Scopes are checked where the call comes in (each HTTP endpoint
   * names the scope it needs); these methods apply the limits. Without `forKey`, calls have no limits.
   */
  forKey(key: AccessKey): FlowgateApi;
}
