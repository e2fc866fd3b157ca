import type { FlowgateApi } from '../../../core/api/flowgateApi.js';
import type { HistoryStreamRequest, IdempotencyOptions } from '../../../core/api/requests.js';
import type { Answer, HistoryStreamItem, RunStatusView, WorkflowResultLegacy, WorkflowResultV2 } from '../../../core/api/views.js';
import type { IdGenerator } from '../../../ports/ids.js';
import type { AccessKey } from '../../../core/domain/access.js';
import type { ScheduleView } from '../../../core/api/scheduleViews.js';
import type { LogFields, Logger } from '../../../ports/logger.js';

/*
 * A FlowgateApi double for TRANSPORT behaviour only (status codes, headers, framing). What the endpoints answer
 * for real is the contract suite's job, against the real core and engines.
 */

export const RUN_ID = '0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f';
export const NEW_RUN_ID = '1c8e9d4f-6b2e-4f3c-8d7a-2b3c4d5e6f70';

export const statusView = (workflowId: string, status: RunStatusView['status'] = 'completed'): RunStatusView => ({
  workflowId,
  runId: RUN_ID,
  workflowName: 'echo',
  catalog: 'main',
  status,
  startedAt: '2025-01-01T00:00:00.000Z',
  closedAt: status === 'running' ? null : '2025-01-01T00:00:01.000Z',
});

export const resultV2 = (workflowId: string): WorkflowResultV2 => ({
  v: '2',
  workflowId,
  runId: RUN_ID,
  status: 'completed',
  input: { message: 'hi' },
  output: { message: 'hi' },
  trace: { local: '/traces/echo.json' },
  error: null,
});

export const resultLegacy = (workflowId: string): WorkflowResultLegacy => ({
  workflowId,
  runId: RUN_ID,
  status: 'completed',
  input: { message: 'hi' },
  output: { message: 'hi' },
  trace: { destinations: { local: '/traces/echo.json' } },
  error: null,
  errorDetails: null,
});

/** When the fake's keyed answers expire. */
export const EXPIRES_AT = new Date('2025-01-02T00:00:00.000Z');

/** The fake's answer: with an idempotency key it expires at EXPIRES_AT. */
function answered<T>(answer: T, options: IdempotencyOptions | undefined): Answer<T> {
  return options?.idempotencyKey === undefined ? { answer } : { answer, expiresAt: EXPIRES_AT };
}

export interface RecordedCall {
  method: keyof FlowgateApi;
  args: unknown[];
}

type Overrides = { [K in keyof FlowgateApi]?: FlowgateApi[K] };

export class RecordingApi implements FlowgateApi {
  readonly calls: RecordedCall[] = [];
  /** Replace single methods per test. */
  overrides: Overrides = {};
  /** The signal the last history stream was given. */
  lastStreamRequest: HistoryStreamRequest | undefined;

  private record<K extends keyof FlowgateApi>(method: K, args: Parameters<FlowgateApi[K]>): ReturnType<FlowgateApi[K]> | undefined {
    this.calls.push({ method, args });
    const override = this.overrides[method] as ((...a: Parameters<FlowgateApi[K]>) => ReturnType<FlowgateApi[K]>) | undefined;
    return override?.(...args);
  }

  lastCall(method: keyof FlowgateApi): unknown[] | undefined {
    return this.calls.filter((call) => call.method === method).at(-1)?.args;
  }

  /** The client's signal the last run-and-wait was given (recorded apart: the calls hold what the request said). */
  lastRunAndWaitSignal: AbortSignal | undefined;
  runAndWait: FlowgateApi['runAndWait'] = async (request, version, withSignal) => {
    const { signal, ...options } = withSignal ?? {};
    this.lastRunAndWaitSignal = signal;
    return (
      this.record('runAndWait', [request, version, options]) ??
      answered(version === 'legacy' ? resultLegacy(request.workflowId ?? 'generated') : resultV2(request.workflowId ?? 'generated'), options)
    );
  };
  start: FlowgateApi['start'] = async (request, options) =>
    this.record('start', [request, options]) ?? answered({ workflowId: request.workflowId ?? 'generated', runId: RUN_ID, status: 'running' }, options);
  listWorkflows: FlowgateApi['listWorkflows'] = async (catalog) =>
    this.record('listWorkflows', [catalog]) ?? { workflows: [{ name: 'echo', description: 'Echoes its input.', inputSchema: { type: 'object' }, outputSchema: {} }] };
  sendFeedback: FlowgateApi['sendFeedback'] = async (workflowId, payload, options) =>
    this.record('sendFeedback', [workflowId, payload, options]) ?? answered({ workflowId, runId: RUN_ID }, options);
  stop: FlowgateApi['stop'] = async (run) => this.record('stop', [run]) ?? { workflowId: run.workflowId, runId: run.runId ?? RUN_ID };
  terminate: FlowgateApi['terminate'] = async (run, reason, options) =>
    this.record('terminate', [run, reason, options]) ?? answered({ terminated: true, workflowId: run.workflowId, runId: run.runId ?? RUN_ID }, options);
  reset: FlowgateApi['reset'] = async (run, stepName, reason, options) =>
    this.record('reset', [run, stepName, reason, options]) ?? answered({ workflowId: run.workflowId, runId: NEW_RUN_ID }, options);
  getResult: FlowgateApi['getResult'] = async (run, version) =>
    this.record('getResult', [run, version]) ?? (version === 'legacy' ? resultLegacy(run.workflowId) : resultV2(run.workflowId));
  getStatus: FlowgateApi['getStatus'] = async (run) => this.record('getStatus', [run]) ?? statusView(run.workflowId);
  getInput: FlowgateApi['getInput'] = async (run) => this.record('getInput', [run]) ?? { workflowId: run.workflowId, runId: RUN_ID, input: { a: 1 } };
  listRuns: FlowgateApi['listRuns'] = async (request) => this.record('listRuns', [request]) ?? { runs: [statusView('wf-1')], nextPageToken: null };
  historyPage: FlowgateApi['historyPage'] = async (run, request) =>
    this.record('historyPage', [run, request]) ?? { workflow: statusView(run.workflowId), events: [], nextPageToken: null };
  historyStream: FlowgateApi['historyStream'] = async (run, request) => {
    this.lastStreamRequest = request;
    return this.record('historyStream', [run, request]) ?? closedRunStream(run.workflowId);
  };
  fetchTrace: FlowgateApi['fetchTrace'] = async (run) =>
    this.record('fetchTrace', [run]) ?? { source: 'local', runId: run.runId, localPath: '/traces/x.json' };
  readiness: FlowgateApi['readiness'] = async () => this.record('readiness', []) ?? { status: 'ready', engine: 'memory' };
  bulkControl: FlowgateApi['bulkControl'] = async (action, request) =>
    this.record('bulkControl', [action, request]) ?? { action, dryRun: request.dryRun, matched: 0, alreadyClosed: 0, succeeded: 0, failures: [], truncated: false };
  rerun: FlowgateApi['rerun'] = async (run, request, options) =>
    this.record('rerun', [run, request, options]) ??
    answered({ workflowId: request.workflowId ?? 'generated', runId: NEW_RUN_ID, status: 'running' as const, rerunOf: run }, options);
  bulkRerun: FlowgateApi['bulkRerun'] = async (request) =>
    this.record('bulkRerun', [request]) ?? { action: 'rerun', dryRun: request.dryRun, matched: 0, runs: [], started: [], succeeded: 0, failures: [], truncated: false };
  createSchedule: FlowgateApi['createSchedule'] = async (request) => this.record('createSchedule', [request]) ?? scheduleView(request.scheduleId);
  listSchedules: FlowgateApi['listSchedules'] = async (request) => this.record('listSchedules', [request]) ?? { schedules: [scheduleView('nightly')], nextPageToken: null };
  getSchedule: FlowgateApi['getSchedule'] = async (scheduleId) => this.record('getSchedule', [scheduleId]) ?? scheduleView(scheduleId);
  updateSchedule: FlowgateApi['updateSchedule'] = async (scheduleId, request) => this.record('updateSchedule', [scheduleId, request]) ?? scheduleView(scheduleId);
  deleteSchedule: FlowgateApi['deleteSchedule'] = async (scheduleId) => this.record('deleteSchedule', [scheduleId]) ?? undefined;
  setSchedulePaused: FlowgateApi['setSchedulePaused'] = async (scheduleId, paused, note) =>
    this.record('setSchedulePaused', [scheduleId, paused, note]) ?? { ...scheduleView(scheduleId), paused, note: note ?? '' };
  triggerSchedule: FlowgateApi['triggerSchedule'] = async (scheduleId, overlap) => this.record('triggerSchedule', [scheduleId, overlap]) ?? { scheduleId, fires: 1 };
  backfillSchedule: FlowgateApi['backfillSchedule'] = async (scheduleId, request) => this.record('backfillSchedule', [scheduleId, request]) ?? { scheduleId, fires: 3 };
  /** The keys the app bound the use cases to, in order; the fake itself answers for every key. */
  readonly boundKeys: AccessKey[] = [];
  forKey: FlowgateApi['forKey'] = (key) => {
    this.boundKeys.push(key);
    return this;
  };
}

/** The whole history of a closed run: metadata, two events, done. */
export async function* closedRunStream(workflowId: string): AsyncGenerator<HistoryStreamItem> {
  yield { event: 'workflow', data: statusView(workflowId) };
  yield { event: 'history', id: 1, data: { eventId: 1, type: 'workflow_started', time: '2025-01-01T00:00:00.000Z', attributes: {} } };
  yield { event: 'history', id: 2, data: { eventId: 2, type: 'workflow_completed', time: '2025-01-01T00:00:01.000Z', attributes: { note: 'line\nbreak' } } };
  yield { event: 'done', data: { status: 'completed' } };
}

export class SequentialIds implements IdGenerator {
  private counter = 0;
  uuid(): string {
    this.counter += 1;
    return `00000000-0000-4000-8000-${String(this.counter).padStart(12, '0')}`;
  }
}

/** A schedule as GET /schedules/{id} answers it: every 30 s, never fired. */
export function scheduleView(scheduleId: string): ScheduleView {
  return {
    scheduleId,
    workflowName: 'echo',
    catalog: 'default',
    input: { message: 'hi' },
    spec: { every: '30s', timezone: 'UTC', startAt: null, endAt: null, jitterSeconds: 0 },
    policy: { overlap: 'skip', catchupWindowSeconds: 60, pauseOnFailure: false },
    paused: false,
    note: '',
    actionCount: 0,
    missedCount: 0,
    nextFireTimes: ['2026-01-01T00:00:30.000Z'],
    recentActions: [],
    runningRuns: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  };
}
