import type { ZodType } from 'zod';
import { getHistory } from './handlers/history.js';
import { bulkControl, resetRun, stopRun, terminateRun } from './handlers/control.js';
import { getInput, getResult, getStatus, getTraceLog, listRuns } from './handlers/runs.js';
import { health, keyDescription, metricsExposition, openApiDocument, readiness } from './handlers/system.js';
import { bulkRerun, rerunRun } from './handlers/rerun.js';
import { BulkRerunResponseSchema, RerunResponseSchema } from './schemas/operations.js';
import { BulkRerunBodySchema, RerunBodySchema } from './schemas/requests.js';
import { listWorkflows, runAndWait, sendFeedback, startWorkflow } from './handlers/workflows.js';
import {
  CLOSED,
  deprecatedInFavourOf,
  failure,
  NOT_COMPLETED,
  NOT_COMPLETED_AFTER_WAIT,
  NOT_FOUND,
  resetResponses,
  RESULT_OK,
  success,
} from './responseDocs.js';
import { defineRoute, type ResponseDoc, type Route } from './route.js';
import { scheduleRoutes } from './scheduleRoutes.js';
import { IDEMPOTENCY_KEY_HEADER } from './handlers/idempotency.js';
import {
  BulkControlResponseSchema,
  FeedbackResponseSchema,
  HealthSchema,
  KeyDescriptionSchema,
  OpenApiDocumentSchema,
  ReadinessSchema,
  StartResponseSchema,
  StopResponseSchema,
  TerminateResponseSchema,
  TraceLogSchema,
  WorkflowListSchema,
} from './schemas/operations.js';
import {
  BulkCancelBodySchema,
  BulkTerminateBodySchema,
  createRunWorkflowBodySchema,
  FeedbackBodySchema,
  HistoryQuerySchema,
  ListRunsQuerySchema,
  ResetBodySchema,
  ResultQuerySchema,
  createResultQuerySchema,
  RunParamsSchema,
  StartWorkflowBodySchema,
  StopBodySchema,
  TerminateBodySchema,
  WorkflowListQuerySchema,
  WorkflowParamsSchema,
  type RunBodyLimits,
} from './schemas/requests.js';
import { ErrorBodySchema } from './schemas/common.js';
import {
  HistoryDoneSchema,
  HistoryEventSchema,
  HistoryPageSchema,
  HistoryProgressSchema,
  InputViewSchema,
  RunListSchema,
  RunStatusViewSchema,
} from './schemas/runs.js';

/**
 * THE route table: the router, the request validation and the OpenAPI document are all derived from it. Built per
 * app because the POST /workflow/run timeout bounds are options.
 */
export function createRoutes(limits: RunBodyLimits): Route[] {
  const RunWorkflowBodySchema = createRunWorkflowBodySchema(limits);
  return [
    defineRoute({
      method: 'POST',
      path: '/workflow/run',
      operationId: 'runWorkflow',
      scope: 'start',
      summary: 'Run a workflow and wait for its result',
      description: `Starts the workflow and waits up to \`timeout\` seconds (default ${limits.defaultRunTimeoutSeconds}, at most ${limits.runTimeoutMaxSeconds}). A workflow that ends failed, cancelled, terminated or timed out is still a 200; see \`status\` and \`error\`. On 408 the workflow keeps running and its result stays readable.`,
      tags: ['workflows'],
      query: ResultQuerySchema,
      body: { schema: RunWorkflowBodySchema },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: {
        200: keyed(RESULT_OK),
        404: failure('WorkflowNotFoundError (no catalog has the workflow type) or CatalogNotAvailableError (unknown catalog).'),
        408: {
          ...failure('WorkflowExecutionTimedOutError: the timeout passed first; the run keeps going. The body carries `workflowId` and `runId`, and `Location` points at the pinned result to read (or long-poll with `?wait=`) later.'),
          headers: ['Location'],
        },
        409: failure(`WorkflowAlreadyStartedError: the workflowId belongs to a running execution. Or ${KEY_REUSED}`),
        424: failure('UnsupportedWorkflowError: the workflow type is not in the selected catalog.'),
        503: failure("CatalogNotAvailableError: the catalog's worker is not running or still starting; see Retry-After."),
      },
      handle: ({ body, query, headers, signal }, context) => runAndWait(body, query.v, headers, context, signal),
    }),
    defineRoute({
      method: 'POST',
      path: '/workflow',
      operationId: 'startWorkflow',
      scope: 'start',
      summary: 'Start a workflow without waiting',
      tags: ['workflows'],
      body: { schema: StartWorkflowBodySchema },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: {
        200: keyed(success(StartResponseSchema, 'Started.')),
        404: failure('WorkflowNotFoundError or CatalogNotAvailableError (unknown catalog).'),
        409: failure(`WorkflowAlreadyStartedError: the workflowId belongs to a running execution. Or ${KEY_REUSED}`),
        424: failure('UnsupportedWorkflowError: the workflow type is not in the selected catalog.'),
        503: failure("CatalogNotAvailableError: the catalog's worker is not running; see Retry-After."),
      },
      handle: ({ body, headers }, context) => startWorkflow(body, headers, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/workflow/list',
      operationId: 'listWorkflows',
      summary: 'List the registered workflows of a catalog',
      tags: ['workflows'],
      query: WorkflowListQuerySchema,
      responses: {
        200: success(WorkflowListSchema, 'The workflows of the catalog.'),
        404: failure('CatalogNotAvailableError: unknown catalog.'),
        503: failure('EngineUnavailableError: the engine cannot be reached right now; see Retry-After. (A known catalog without a running worker still lists what it published.)'),
      },
      handle: ({ query }, context) => listWorkflows(query.catalog, context),
    }),
    defineRoute({
      method: 'POST',
      path: '/workflow/feedback',
      operationId: 'sendFeedback',
      scope: 'control',
      summary: 'Resume a workflow waiting on a webhook',
      description:
        "Delivered to the latest run; buffered when the run is open but has not reached its wait yet. A payload the workflow's published `feedbackSchema` refuses is 400 and not delivered: the run keeps waiting.",
      tags: ['workflows'],
      body: { schema: FeedbackBodySchema },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: {
        200: keyed(success(FeedbackResponseSchema, 'Delivered.')),
        404: NOT_FOUND,
        409: orKeyReused(CLOSED),
      },
      handle: ({ body, headers }, context) => sendFeedback(body, headers, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/workflow/runs',
      operationId: 'listRuns',
      summary: 'List runs, newest first',
      tags: ['runs'],
      query: ListRunsQuerySchema,
      responses: { 200: success(RunListSchema, 'One page of runs.') },
      handle: ({ query }, context) => listRuns(query, context),
    }),
    ...[false, true].flatMap((pinned) => runReadRoutes(pinned, limits)),
    defineRoute({
      method: 'PATCH',
      path: '/workflow/{id}/runs/{rid}/stop',
      operationId: 'stopRun',
      scope: 'control',
      summary: 'Stop (cancel) a run; cleanup is allowed',
      tags: ['control'],
      params: RunParamsSchema,
      body: { schema: StopBodySchema, optional: true },
      responses: { 200: success(StopResponseSchema, 'Cancellation requested.'), 404: NOT_FOUND, 409: CLOSED },
      handle: ({ params }, context) => stopRun(params, context),
    }),
    defineRoute({
      method: 'PATCH',
      path: '/workflow/{id}/stop',
      operationId: 'stopLatestRun',
      scope: 'control',
      summary: 'Stop the latest run (deprecated)',
      description: 'Use PATCH /workflow/{id}/runs/{rid}/stop. The returned runId is the run as described, which may differ from the cancelled run if a new execution started concurrently.',
      tags: ['control'],
      deprecated: deprecatedInFavourOf('/workflow/{id}/runs/{rid}/stop'),
      params: WorkflowParamsSchema,
      body: { schema: StopBodySchema, optional: true },
      responses: { 200: success(StopResponseSchema, 'Cancellation requested.'), 404: NOT_FOUND, 409: CLOSED },
      handle: ({ params }, context) => stopRun(params, context),
    }),
    defineRoute({
      method: 'POST',
      path: '/workflow/{id}/runs/{rid}/reset',
      operationId: 'resetRun',
      scope: 'control',
      summary: 'Reset a run to just after a completed step',
      description: 'Terminates the current execution; a new run replays from that point. The response names the NEW run.',
      tags: ['control'],
      params: RunParamsSchema,
      body: { schema: ResetBodySchema },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: keyedResetResponses(),
      handle: ({ params, body, headers }, context) => resetRun(params, body, headers, context),
    }),
    defineRoute({
      method: 'POST',
      path: '/workflow/{id}/reset',
      operationId: 'resetLatestRun',
      scope: 'control',
      summary: 'Reset the latest run (deprecated)',
      description: 'Use POST /workflow/{id}/runs/{rid}/reset. Resets the latest run as described at the time of the call; the `Link` header names that run. The response names the NEW run.',
      tags: ['control'],
      deprecated: deprecatedInFavourOf('/workflow/{id}/runs/{rid}/reset'),
      params: WorkflowParamsSchema,
      body: { schema: ResetBodySchema },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: keyedResetResponses(),
      handle: ({ params, body, headers }, context) => resetRun(params, body, headers, context),
    }),
    defineRoute({
      method: 'POST',
      path: '/workflow/{id}/runs/{rid}/terminate',
      operationId: 'terminateRun',
      scope: 'control',
      summary: 'Terminate a run immediately, without cleanup',
      tags: ['control'],
      params: RunParamsSchema,
      body: { schema: TerminateBodySchema, optional: true },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: { 200: keyed(success(TerminateResponseSchema, 'Terminated.')), 404: NOT_FOUND, 409: orKeyReused(CLOSED) },
      handle: ({ params, body, headers }, context) => terminateRun(params, body.reason, headers, context),
    }),
    ...(['terminate', 'cancel'] as const).map((action) =>
      defineRoute({
        method: 'POST',
        path: `/workflow/runs/${action}`,
        operationId: action === 'terminate' ? 'terminateRuns' : 'cancelRuns',
        scope: 'control',
        summary: action === 'terminate' ? 'Terminate every run a filter matches' : 'Cancel (stop, clean-up allowed) every run a filter matches',
        description:
          'The runs `GET /workflow/runs` lists with the same `workflowName`, `catalog` and `status` filters (at least one is required). `dryRun: true` only counts them. The matching runs are listed first; runs listed as closed are counted in `alreadyClosed`, the open ones acted on 16 at a time. One failing run does not stop the others: `failures` lists each with the error a single call would have answered. At most 10,000 open runs per call (`truncated`: call again).',
        tags: ['control'],
        body: { schema: action === 'terminate' ? BulkTerminateBodySchema : BulkCancelBodySchema },
        responses: { 200: success(BulkControlResponseSchema, action === 'terminate' ? 'Terminated, with the runs that could not be.' : 'Cancellation requested, with the runs that could not be.') },
        handle: ({ body }, context) => bulkControl(action, body, context),
      }),
    ),
    defineRoute({
      method: 'POST',
      path: '/workflow/{id}/runs/{rid}/rerun',
      operationId: 'rerunRun',
      scope: 'start',
      summary: 'Start a new run of the same workflow with the same input',
      description:
        "Reads the pinned run's workflow, catalog and input (a continued run's own input) and starts a new run as `POST /workflow` would, with the same checks against what the catalog publishes now: nothing starts when one fails. The new run records the run it repeats (`rerunOf` in its status and run-list entry). Without `workflowId` a new one is generated; an open run can be rerun only under another id.",
      tags: ['control'],
      params: RunParamsSchema,
      body: { schema: RerunBodySchema, optional: true },
      requestHeaders: [IDEMPOTENCY_KEY_HEADER],
      responses: {
        200: keyed(success(RerunResponseSchema, 'Started.')),
        404: failure('WorkflowNotFoundError: no such run, or no catalog has its workflow type any more; or CatalogNotAvailableError: its catalog is unknown.'),
        409: failure(`WorkflowAlreadyStartedError: the workflowId belongs to a running execution (the repeated run itself while it is open). Or: ${KEY_REUSED}`),
        424: failure("UnsupportedWorkflowError: the run's catalog no longer has its workflow type."),
        503: failure("CatalogNotAvailableError: the run's catalog has no worker running now; see Retry-After."),
      },
      handle: ({ params, body, headers }, context) => rerunRun(params, body, headers, context),
    }),
    defineRoute({
      method: 'POST',
      path: '/workflow/runs/rerun',
      operationId: 'rerunRuns',
      scope: 'control',
      summary: 'Rerun every run a filter matches',
      description:
        'The runs `GET /workflow/runs` lists with the same `workflowName`, `catalog` and `status` filters (at least one is required), open and closed, each rerun as `POST /workflow/{id}/runs/{rid}/rerun` would under a new workflow id. `dryRun: true` only lists them. The matching runs are listed first, so the new runs are never among them; then they are rerun 16 at a time. One failing run does not stop the others: `failures` lists each with the error a single rerun would have answered. At most 10,000 runs per call (`truncated`: narrow the filter, since calling again would rerun the same runs again).',
      tags: ['control'],
      body: { schema: BulkRerunBodySchema },
      responses: { 200: success(BulkRerunResponseSchema, 'Rerun, with the runs that could not be.') },
      handle: ({ body }, context) => bulkRerun(body, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/workflow/{id}/runs/{rid}/trace-log',
      operationId: 'getTraceLog',
      summary: 'Trace data of a run',
      description: 'Remote traces are fetched and returned inline (`source: remote`); a local-only trace returns its path, plus the data when this server can read the file.',
      tags: ['runs'],
      params: RunParamsSchema,
      responses: {
        200: success(TraceLogSchema, 'The trace.'),
        404: failure('WorkflowNotFoundError, or TraceNotFoundError: the run has no trace.'),
        424: NOT_COMPLETED,
      },
      handle: ({ params }, context) => getTraceLog(params, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/ready',
      operationId: 'readiness',
      summary: 'Readiness: whether the workflow engine answers',
      tags: ['system'],
      public: true,
      responses: {
        200: success(ReadinessSchema, 'Ready.'),
        503: success(ReadinessSchema, 'The engine connection is unhealthy.', { headers: ['Retry-After'] }),
      },
      handle: (_input, context) => readiness(context),
    }),
    defineRoute({
      method: 'GET',
      path: '/health',
      operationId: 'health',
      summary: 'Liveness: the process serves requests',
      tags: ['system'],
      public: true,
      responses: { 200: success(HealthSchema, 'Alive.') },
      handle: () => health(),
    }),
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      operationId: 'openApiDocument',
      summary: 'This API description (OpenAPI 3.1)',
      tags: ['system'],
      public: true,
      requestHeaders: [{ name: 'If-None-Match', description: 'The `ETag` of a copy the client has: a 304 without a body while it is current.' }],
      responses: {
        200: success(OpenApiDocumentSchema, 'The OpenAPI document.', { headers: ['ETag'] }),
        304: { description: 'Not modified: the copy `If-None-Match` names is this document.', headers: ['ETag'] },
      },
      handle: ({ headers }, context) => openApiDocument(headers, context),
    }),
    defineRoute({
      method: 'GET',
      path: '/auth/key',
      operationId: 'describeKey',
      scope: 'any',
      summary: 'What the calling API key may do',
      description:
        "The key's id, scopes, catalog and workflow limits and expiry (never its secret), and whether it holds each scope (docs/security.md). Any valid key may ask, whatever its scopes; with authentication off the answer says so and allows everything.",
      tags: ['system'],
      responses: { 200: success(KeyDescriptionSchema, 'The calling key.') },
      handle: (_input, context) => keyDescription(context),
    }),
    defineRoute({
      method: 'GET',
      path: '/metrics',
      operationId: 'metrics',
      scope: 'admin',
      summary: 'Metrics in Prometheus text format',
      description:
        'Requests, engine calls, runs, event streams, callbacks and idempotency hits of this API process (docs/operations.md, Metrics). Needs the token like every call; METRICS_PORT serves the same text without it on a port of its own.',
      tags: ['system'],
      responses: {
        200: { description: 'The metrics.', text: 'Prometheus text exposition format 0.0.4.' },
        404: failure('NotFoundError: metrics are switched off (METRICS=off).'),
      },
      handle: (_input, context) => metricsExposition(context),
    }),
    ...scheduleRoutes(),
  ];
}

const KEY_REUSED = 'IdempotencyKeyReusedError: the Idempotency-Key was already used with another request whose answer is still kept.';

/** A success that, for a request with an Idempotency-Key, says until when its answer is kept. */
function keyed<S extends ZodType>(doc: ResponseDoc<S>): ResponseDoc<S> {
  return { ...doc, headers: [...(doc.headers ?? []), 'Idempotency-Expires'] };
}

function orKeyReused<S extends ZodType>(doc: ResponseDoc<S>): ResponseDoc<S> {
  return { ...doc, description: `${doc.description} Or: ${KEY_REUSED}` };
}

function keyedResetResponses() {
  const responses = resetResponses();
  return { ...responses, 200: keyed(responses[200]), 409: orKeyReused(responses[409]) };
}

/** Result, status, input and history exist in an id form (latest run) and a run-pinned form. */
function runReadRoutes(pinned: boolean, limits: RunBodyLimits): Route[] {
  const resultQuery = createResultQuerySchema(limits);
  const base = pinned ? '/workflow/{id}/runs/{rid}' : '/workflow/{id}';
  const params = pinned ? RunParamsSchema : WorkflowParamsSchema;
  const suffix = pinned ? 'OfRun' : '';
  const which = pinned ? 'the pinned run' : 'the latest run';
  return [
    defineRoute({
      method: 'GET',
      path: `${base}/result`,
      operationId: `getResult${suffix}`,
      summary: `Result of ${which}`,
      tags: ['runs'],
      params,
      description: `With \`wait=SECONDS\` (at most ${limits.runTimeoutMaxSeconds}), an open run is waited on that long before the answer (long-poll): the result as soon as the run closes, else 424 with \`Retry-After\`. The wait ends early when the client leaves.`,
      query: resultQuery,
      responses: { 200: RESULT_OK, 404: NOT_FOUND, 424: NOT_COMPLETED_AFTER_WAIT },
      // The disconnect signal only for a wait: making it costs every plain result request (bench figure 1).
      handle: (input, context) =>
        getResult(input.params, input.query.v, context, input.query.wait ? { seconds: input.query.wait, signal: input.signal } : {}),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/status`,
      operationId: `getStatus${suffix}`,
      summary: `Status of ${which}`,
      tags: ['runs'],
      params,
      responses: { 200: success(RunStatusViewSchema, 'The run status.'), 404: NOT_FOUND },
      handle: ({ params }, context) => getStatus(params, context),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/input`,
      operationId: `getInput${suffix}`,
      summary: pinned ? 'Input of the pinned run' : 'Original input of the workflow (first run of a continue-as-new chain)',
      tags: ['runs'],
      params,
      responses: { 200: success(InputViewSchema, 'The input.'), 404: NOT_FOUND },
      handle: ({ params }, context) => getInput(params, context),
    }),
    defineRoute({
      method: 'GET',
      path: `${base}/history`,
      operationId: `getHistory${suffix}`,
      summary: `History of ${which}: a JSON page, or server-sent events`,
      description: 'With `Accept: text/event-stream`: one `workflow` event (metadata), one `history` event per engine event with `id:` = eventId, a `: keep-alive` comment every 15 s while quiet, and a final `done` event `{status}` once the run closes, after which the response ends. `Last-Event-ID` resumes after that event; once the run is closed and the client has its last event, the answer is 204. `Accept` is weighed by quality: JSON unless the client gives `text/event-stream` a higher quality, or the same and names it. A failure after the stream started ends it with an `error` event `{error, message}`. Between history events, `progress` events carry what running steps reported with `progress(fields)` (docs/progress.md); they are not part of the history (the JSON page has none), and their `id:` is `<last history eventId>/<stepEventId>.<seq>/…`, which `Last-Event-ID` accepts too, so a reconnect neither repeats nor skips progress.',
      tags: ['runs'],
      params,
      query: HistoryQuerySchema,
      // No `Accept` parameter: OpenAPI 3.1 ignores one (the description and the two media types say it).
      requestHeaders: [
        { name: 'Last-Event-ID', description: 'Event stream only: resume after this event id (a history event id, or a progress event id).' },
      ],
      responses: {
        200: success(HistoryPageSchema, 'One page of history events.', {
          eventStream: {
            description: 'With `Accept: text/event-stream`, server-sent events: `workflow`, `history` (one per event), `progress` (of running steps), then `done` or `error`.',
            events: {
              workflow: { description: 'First: the run as its status reads.', data: RunStatusViewSchema },
              history: { description: 'One per engine event, in order.', data: HistoryEventSchema, id: 'The event\'s `eventId`.' },
              progress: {
                description: 'What a running step reported with `progress(fields)` (docs/progress.md); not part of the history.',
                data: HistoryProgressSchema,
                id: '`<last history eventId>/<stepEventId>.<seq>/…`, which `Last-Event-ID` accepts.',
              },
              done: {
                description: 'Last: the run closed; the response ends.',
                data: HistoryDoneSchema,
                id: 'Empty, on the latest-run URL once another run is the latest (continued as new, reset, started again): it clears the client\'s last event id, so a reconnect streams that run from its start.',
                idOnlySometimes: true,
              },
              error: { description: 'Last: a failure after the stream started; the response ends.', data: ErrorBodySchema },
            },
          },
        }),
        204: {
          description:
            'Event stream only: a reconnect (`Last-Event-ID`) to a closed run after its last event; the client has the whole history, and an EventSource stops on a 204 instead of reconnecting.',
        },
        404: NOT_FOUND,
      },
      handle: (input, context) => getHistory(input, context),
    }),
  ];
}

export { DEPRECATED_ENDPOINT_SUNSET } from './responseDocs.js';
