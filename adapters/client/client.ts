import { followHistory, type FollowEvent, type FollowOptions } from './follow.js';
import { idPathSegment } from '../../core/domain/ids.js';
import { runAndWait, type RunOptions } from './runAndWait.js';
import { ScheduleCalls } from './schedules.js';
import { newIdempotencyKey, Transport, type Call, type TransportOptions } from './transport.js';
import type {
  BulkCancelRequest,
  BulkControlResponse,
  BulkTerminateRequest,
  CallOptions,
  FeedbackResponse,
  Health,
  KeyDescription,
  HistoryPage,
  HistoryQuery,
  InputView,
  KeyedCallOptions,
  ListRunsQuery,
  Readiness,
  ResetRequest,
  ResetResponse,
  RerunResponse,
  BulkRerunRequest,
  BulkRerunResponse,
  RunList,
  RunStatusView,
  StartResponse,
  StartWorkflowRequest,
  StopResponse,
  TerminateResponse,
  TraceLog,
  WorkflowList,
  WorkflowResult,
  WorkflowResultLegacy,
  WorkflowResultV2,
} from './types.js';
import { workflowName, type TypedResult, type WorkflowInput, type WorkflowOutput, type WorkflowTarget } from './workflowTypes.js';

export type ClientOptions = TransportOptions;

export interface StartOptions extends KeyedCallOptions, Omit<StartWorkflowRequest, 'workflowName' | 'input'> {}

/** A run of a workflow id: the latest one, or the one `runId` names (the run-pinned endpoint). */
export interface RunSelector extends CallOptions {
  runId?: string | undefined;
}

export interface ResultOptions extends RunSelector {
  /** Seconds to wait for an open run to close first (long-poll, docs/long-poll.md). */
  wait?: number | undefined;
}

/**
 * flowgate's HTTP API, one method per endpoint (docs/client.md). Answers are the server's JSON bodies as they are
 * (typed by the schemas that validate the server); a failure is a FlowgateApiError. `run` and `start` are typed by the
 * workflow definitions when given one (or a `workflowRef`), and take `unknown` by name.
 */
export class FlowgateClient {
  private readonly transport: Transport;
  /** The schedule endpoints: `client.schedules.create(…)`, `.list`, `.get`, `.update`, `.pause`, … (docs/schedules.md). */
  readonly schedules: ScheduleCalls;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.schedules = new ScheduleCalls(this.transport);
  }

  /** POST /workflow/run, followed until the run closes (or `timeoutMs` passes): see runAndWait.ts. */
  run<W extends WorkflowTarget>(workflow: W, input: WorkflowInput<W>, options?: RunOptions): Promise<TypedResult<WorkflowOutput<W>>> {
    return runAndWait(this.transport, workflowName(workflow), input, options) as Promise<TypedResult<WorkflowOutput<W>>>;
  }

  /** POST /workflow: starts without waiting; with an Idempotency-Key by default. */
  async start<W extends WorkflowTarget>(workflow: W, input: WorkflowInput<W>, options: StartOptions = {}): Promise<StartResponse> {
    const { signal, requestId, idempotencyKey, ...fields } = options;
    return this.keyed<StartResponse>({ method: 'POST', path: '/workflow', body: { ...fields, workflowName: workflowName(workflow), input }, signal, requestId }, idempotencyKey);
  }

  /** GET /workflow/list: the workflows of a catalog with their input and output JSON Schemas. */
  listWorkflows(options: CallOptions & { catalog?: string | undefined } = {}): Promise<WorkflowList> {
    const { catalog, ...call } = options;
    return this.read('/workflow/list', call, { catalog });
  }

  /** POST /workflow/feedback: resumes the latest run of `workflowId` waiting on a webhook. */
  sendFeedback(workflowId: string, payload: Record<string, unknown>, options: KeyedCallOptions = {}): Promise<FeedbackResponse> {
    const { idempotencyKey, ...call } = options;
    return this.keyed({ method: 'POST', path: '/workflow/feedback', body: { workflowId, payload }, ...call }, idempotencyKey);
  }

  /** GET /workflow/runs: one page, newest first. */
  listRuns(query: ListRunsQuery = {}, options: CallOptions = {}): Promise<RunList> {
    return this.read('/workflow/runs', options, query);
  }

  /** GET .../result: version 2 (`v: 'legacy'` for the deprecated shape); `wait` long-polls an open run. */
  result(workflowId: string, options?: ResultOptions & { v?: '2' | undefined }): Promise<WorkflowResultV2>;
  result(workflowId: string, options: ResultOptions & { v: 'legacy' }): Promise<WorkflowResultLegacy>;
  result(workflowId: string, options: ResultOptions & { v?: '2' | 'legacy' | undefined } = {}): Promise<WorkflowResult> {
    const { runId, wait, v, ...call } = options;
    return this.read(`${runPath(workflowId, runId)}/result`, call, { wait, v }, wait);
  }

  /** GET .../status */
  status(workflowId: string, options: RunSelector = {}): Promise<RunStatusView> {
    const { runId, ...call } = options;
    return this.read(`${runPath(workflowId, runId)}/status`, call);
  }

  /** GET .../input */
  input(workflowId: string, options: RunSelector = {}): Promise<InputView> {
    const { runId, ...call } = options;
    return this.read(`${runPath(workflowId, runId)}/input`, call);
  }

  /** GET .../history: one JSON page. */
  history(workflowId: string, options: RunSelector & HistoryQuery = {}): Promise<HistoryPage> {
    const { runId, pageSize, pageToken, ...call } = options;
    return this.read(`${runPath(workflowId, runId)}/history`, call, { pageSize, pageToken });
  }

  /** GET .../history as server-sent events, resumed after a dropped connection: see follow.ts. */
  follow(workflowId: string, options: FollowOptions = {}): AsyncGenerator<FollowEvent, void, undefined> {
    return followHistory(this.transport, workflowId, options);
  }

  /** PATCH .../stop: cancels the run (clean-up allowed). Without `runId`, the deprecated latest-run form. */
  async stop(workflowId: string, options: RunSelector = {}): Promise<StopResponse> {
    const { runId, ...call } = options;
    return (await this.transport.json<StopResponse>({ method: 'PATCH', path: `${runPath(workflowId, runId)}/stop`, retrySafe: false, ...defined(call) })).body;
  }

  /** POST /workflow/{id}/runs/{rid}/terminate */
  terminate(workflowId: string, runId: string, options: KeyedCallOptions & { reason?: string | undefined } = {}): Promise<TerminateResponse> {
    const { idempotencyKey, reason, ...call } = options;
    return this.keyed({ method: 'POST', path: `${runPath(workflowId, runId)}/terminate`, body: reason === undefined ? {} : { reason }, ...call }, idempotencyKey);
  }

  /** POST .../reset: a NEW run replays from just after `stepName`. Without `runId`, the deprecated latest-run form. */
  reset(workflowId: string, request: ResetRequest, options: KeyedCallOptions & { runId?: string | undefined } = {}): Promise<ResetResponse> {
    const { idempotencyKey, runId, ...call } = options;
    return this.keyed({ method: 'POST', path: `${runPath(workflowId, runId)}/reset`, body: request, ...call }, idempotencyKey);
  }

  /**
   * POST /workflow/{id}/runs/{rid}/rerun: a new run of the same workflow with the run's input (`newWorkflowId`: its
   * id). Keyed like a start, so a retry after a dropped connection joins the first rerun.
   */
  rerun(workflowId: string, runId: string, options: KeyedCallOptions & { newWorkflowId?: string | undefined; callbackUrl?: string | undefined } = {}): Promise<RerunResponse> {
    const { idempotencyKey, newWorkflowId, callbackUrl, ...call } = options;
    const body = { ...(newWorkflowId === undefined ? {} : { workflowId: newWorkflowId }), ...(callbackUrl === undefined ? {} : { callbackUrl }) };
    return this.keyed({ method: 'POST', path: `${runPath(workflowId, runId)}/rerun`, body, ...call }, idempotencyKey);
  }

  /** POST /workflow/runs/rerun: every run a filter matches, each rerun under a new id; `dryRun` lists them (docs/bulk.md). */
  rerunRuns(request: BulkRerunRequest, options: CallOptions = {}): Promise<BulkRerunResponse> {
    return this.write('/workflow/runs/rerun', request, options);
  }

  /** POST /workflow/runs/terminate: every run a filter matches (docs/bulk.md). */
  terminateRuns(request: BulkTerminateRequest, options: CallOptions = {}): Promise<BulkControlResponse> {
    return this.write('/workflow/runs/terminate', request, options);
  }

  /** POST /workflow/runs/cancel */
  cancelRuns(request: BulkCancelRequest, options: CallOptions = {}): Promise<BulkControlResponse> {
    return this.write('/workflow/runs/cancel', request, options);
  }

  /** GET /workflow/{id}/runs/{rid}/trace-log */
  traceLog(workflowId: string, runId: string, options: CallOptions = {}): Promise<TraceLog> {
    return this.read(`${runPath(workflowId, runId)}/trace-log`, options);
  }

  /** GET /ready: the readiness body, also when it is a 503 `{status: 'unavailable'}` (never retried). */
  async ready(options: CallOptions = {}): Promise<Readiness> {
    try {
      return (await this.transport.json<Readiness>({ method: 'GET', path: '/ready', retrySafe: true, retryRefusals: false, ...defined(options) })).body;
    } catch (error) {
      const body = (error as { body?: unknown }).body as Readiness | undefined;
      if ((error as { status?: unknown }).status === 503 && body?.status === 'unavailable') return body;
      throw error;
    }
  }

  /** GET /auth/key: the calling key's id, scopes, limits and expiry, and what it may do (`can`). */
  describeKey(options: CallOptions = {}): Promise<KeyDescription> {
    return this.read('/auth/key', options);
  }

  /** GET /health */
  health(options: CallOptions = {}): Promise<Health> {
    return this.read('/health', options);
  }

  /** GET /openapi.json */
  openApi(options: CallOptions = {}): Promise<Record<string, unknown>> {
    return this.read('/openapi.json', options);
  }

  /** Closes the keep-alive connections (not a dispatcher the caller gave). */
  close(): Promise<void> {
    return this.transport.close();
  }

  private async read<T>(path: string, options: CallOptions, query: Call['query'] = {}, serverWaitSeconds = 0): Promise<T> {
    return (await this.transport.json<T>({ method: 'GET', path, query, serverWaitSeconds, retrySafe: true, ...defined(options) })).body;
  }

  private async write<T>(path: string, body: unknown, options: CallOptions): Promise<T> {
    return (await this.transport.json<T>({ method: 'POST', path, body, retrySafe: false, ...defined(options) })).body;
  }

  /** A write the server makes safe to retry with an Idempotency-Key: one is sent unless the caller says `false`. */
  private async keyed<T>(
    call: Omit<Call, 'retrySafe' | 'signal' | 'requestId'> & { signal?: AbortSignal | undefined; requestId?: string | undefined },
    idempotencyKey: string | false | undefined,
  ): Promise<T> {
    const key = idempotencyKey === false ? undefined : (idempotencyKey ?? newIdempotencyKey());
    const { signal, requestId, ...rest } = call;
    return (
      await this.transport.json<T>({
        ...rest,
        headers: { ...rest.headers, ...(key === undefined ? {} : { 'idempotency-key': key }) },
        retrySafe: key !== undefined,
        ...defined({ signal, requestId }),
      })
    ).body;
  }
}

export function createFlowgateClient(options: ClientOptions): FlowgateClient {
  return new FlowgateClient(options);
}

/** `/workflow/{id}` or `/workflow/{id}/runs/{rid}`, each id one percent-encoded segment. */
function runPath(workflowId: string, runId: string | undefined): string {
  const base = `/workflow/${idPathSegment(workflowId)}`;
  return runId === undefined ? base : `${base}/runs/${idPathSegment(runId)}`;
}

/** The call options that are set (exactOptionalPropertyTypes-friendly spreading). */
function defined(options: { signal?: AbortSignal | undefined; requestId?: string | undefined }): CallOptions {
  return { ...(options.signal ? { signal: options.signal } : {}), ...(options.requestId !== undefined ? { requestId: options.requestId } : {}) };
}
