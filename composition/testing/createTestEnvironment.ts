import type { FlowgateApi } from '../../core/api/flowgateApi.js';
import type { WorkflowResultV2 } from '../../core/api/views.js';
import type { WorkflowDefinition } from '../../core/definition/workflow.js';
import { WorkflowNotCompletedError } from '../../core/domain/errors.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import type { TraceRecord } from '../../core/domain/trace.js';
import type { CallbackPost, CallbackSender } from '../../ports/callbackSender.js';
import type { LogFields, Logger } from '../../ports/logger.js';
import type { WebhookCall, WebhookSender } from '../../ports/webhookSender.js';
import type { FetchHandler, NodeRequestHandler } from '../../adapters/http/index.js';
import { MemoryTraceStore, TimeSkipper, TimeSkippingEngine, VirtualClock } from '../../adapters/testing/index.js';
import type { EnvInput } from '../config.js';
import { composeEmbedded, type StepReplacement } from '../embed/createFlowgate.js';

export interface TestEnvironmentOptions {
  /** Workflow definitions to run (imported by the test). */
  workflows?: readonly WorkflowDefinition<any, any, any>[] | undefined;
  /** A directory of workflow modules to run (.ts as it is), with their step modules' steps registered by name. */
  workflowsDir?: string | undefined;
  /** Step and evaluator code replaced by name; the step's schemas, retries, history and trace stay. */
  steps?: Readonly<Record<string, StepReplacement>> | undefined;
  /** The virtual clock's start. @default the real time when the environment is made */
  startTime?: Date | number | undefined;
  /**
   * Skip the clock ahead while a result or a history stream is awaited and no step runs. False: time moves only by
   * `clock.advance()`. @default true
   */
  timeSkipping?: boolean | undefined;
  /** Receives the calls of ctx.waitForWebhook({ url }). @default recorded in `webhookCalls`, answered OK */
  webhookSender?: WebhookSender | undefined;
  /** Receives run callbacks (callbackUrl). @default recorded in `callbacks`, answered OK */
  callbackSender?: CallbackSender | undefined;
  /** @default recorded in `logs` */
  logger?: Logger | undefined;
  /** The handlers' mount prefix, for request-level tests of a mounted API. */
  basePath?: string | undefined;
  /** Configuration variables (README), e.g. `{ API_AUTH_TOKEN: 't' }`. @default {} */
  env?: EnvInput | undefined;
}

/** A run's version 2 result, its output typed by the workflow. */
export type TestResult<O = unknown> = Omit<WorkflowResultV2, 'output' | 'runId'> & { runId: string; output: O | null };

export interface RunOptions {
  /** @default a random UUID */
  workflowId?: string | undefined;
  /** How long to wait for the run to close, in real seconds, before failing the call. @default 10 */
  timeoutSeconds?: number | undefined;
}

export interface LogLine extends LogFields {
  level: 'info' | 'warn' | 'error';
  msg: string;
}

export interface TestEnvironment {
  /** The virtual clock: `now()`, `advance(ms)`, `advanceTo(date)`, `pendingTimers`. */
  clock: VirtualClock;
  /** Every trace the runs wrote, in memory. */
  traces: MemoryTraceStore;
  /** Every use case, as the endpoints call them. */
  api: FlowgateApi;
  /** The HTTP API over this environment, for request-level tests (fetch-style and node:http). */
  fetchHandler: FetchHandler;
  nodeHandler: NodeRequestHandler;
  /** Calls the workflows made to webhook targets (when no webhookSender was given). */
  webhookCalls: WebhookCall[];
  /** Run callbacks sent (when no callbackSender was given). */
  callbacks: CallbackPost[];
  /** Log lines (when no logger was given). */
  logs: LogLine[];
  /** Starts a run; resolves once it started. */
  start<I, O, In>(workflow: WorkflowDefinition<I, O, In> | string, input: In, options?: RunOptions): Promise<{ workflowId: string; runId: string }>;
  /** Starts a run and resolves with its result once it closed (time skips meanwhile). */
  run<I, O, In>(workflow: WorkflowDefinition<I, O, In>, input: In, options?: RunOptions): Promise<TestResult<O>>;
  run(workflow: string, input: unknown, options?: RunOptions): Promise<TestResult>;
  /** The result of a run (the latest of the id unless `runId`), waiting for it to close (time skips meanwhile). */
  result<O = unknown>(workflowId: string, runId?: string, options?: Pick<RunOptions, 'timeoutSeconds'>): Promise<TestResult<O>>;
  /** A run's whole history (the latest of the id unless `runId`). */
  history(workflowId: string, runId?: string): Promise<HistoryEvent[]>;
  /** A closed run's trace (the latest of the id unless `runId`). */
  trace(workflowId: string, runId?: string): Promise<TraceRecord>;
  /** Delivers a webhook reply to the run waiting on one (POST /workflow/feedback). */
  feedback(workflowId: string, payload: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

const DEFAULT_RESULT_TIMEOUT_SECONDS = 10;

/**
 * flowgate/testing: your workflows on the embedded engine with a virtual clock, an in-memory trace store and steps
 * replaced by name, through the same composition as the server (createFlowgate's). docs/testing.md shows it with
 * node:test and with uvu.
 */
export async function createTestEnvironment(options: TestEnvironmentOptions = {}): Promise<TestEnvironment> {
  const clock = new VirtualClock(options.startTime ?? Date.now());
  const traces = new MemoryTraceStore();
  const webhookCalls: WebhookCall[] = [];
  const callbacks: CallbackPost[] = [];
  const logs: LogLine[] = [];
  const skipper = options.timeSkipping === false ? undefined : new TimeSkipper(clock);
  const { flowgate } = await composeEmbedded(
    {
      ...(options.workflows ? { workflows: options.workflows } : {}),
      ...(options.workflowsDir !== undefined ? { workflowsDir: options.workflowsDir } : {}),
      ...(options.steps ? { steps: options.steps } : {}),
      ...(options.basePath !== undefined ? { basePath: options.basePath } : {}),
      // In memory, whatever the environment says: a test's runs end with it, on its virtual clock.
      env: { ...options.env, ENGINE: 'memory' },
      clock,
      traceStore: traces,
      webhookSender: options.webhookSender ?? { send: async (call) => void webhookCalls.push(call) },
      callbackSender: options.callbackSender ?? { deliver: async (post) => void callbacks.push(post) },
      logger: options.logger ?? recordingLogger(logs),
    },
    {
      caller: 'createTestEnvironment',
      ...(skipper ? { decorateEngine: (engine) => new TimeSkippingEngine(engine, skipper), observe: (hooks) => skipper.observe(hooks) } : {}),
    },
  );
  const { api } = flowgate;

  const latestRunId = async (workflowId: string, runId: string | undefined): Promise<string> => runId ?? (await api.getStatus({ workflowId })).runId;

  const result = async <O>(workflowId: string, runId?: string, resultOptions: Pick<RunOptions, 'timeoutSeconds'> = {}): Promise<TestResult<O>> => {
    const seconds = resultOptions.timeoutSeconds ?? DEFAULT_RESULT_TIMEOUT_SECONDS;
    try {
      const answer = (await api.getResult({ workflowId, ...(runId ? { runId } : {}) }, '2', { seconds })) as WorkflowResultV2;
      return answer as TestResult<O>;
    } catch (error) {
      if (!(error instanceof WorkflowNotCompletedError)) throw error;
      const waitsOn = skipper && clock.pendingTimers === 0 ? ': no timer is pending, so it waits on what only the test can give (feedback, or a step that never returns)' : '';
      throw new WorkflowNotCompletedError(`Workflow ${workflowId} did not close within ${seconds} s of real time${waitsOn}`, { workflowId, ...(runId ? { runId } : {}) });
    }
  };

  const start = async (workflow: WorkflowDefinition<any, any, any> | string, input: unknown, runOptions: RunOptions = {}) => {
    const { answer: started } = await api.start({ workflowName: typeof workflow === 'string' ? workflow : workflow.name, input, ...(runOptions.workflowId ? { workflowId: runOptions.workflowId } : {}) });
    return { workflowId: started.workflowId, runId: started.runId };
  };

  return {
    clock,
    traces,
    api,
    fetchHandler: flowgate.fetchHandler,
    nodeHandler: flowgate.nodeHandler,
    webhookCalls,
    callbacks,
    logs,
    start,
    run: (async (workflow: WorkflowDefinition<any, any, any> | string, input: unknown, runOptions: RunOptions = {}) => {
      const { workflowId, runId } = await start(workflow, input, runOptions);
      return result(workflowId, runId, runOptions);
    }) as TestEnvironment['run'],
    result,
    history: async (workflowId, runId) => {
      const run = { workflowId, runId: await latestRunId(workflowId, runId) };
      const events: HistoryEvent[] = [];
      let pageToken: string | undefined;
      do {
        const page = await api.historyPage(run, { pageSize: 200, ...(pageToken ? { pageToken } : {}) });
        events.push(...page.events);
        pageToken = page.nextPageToken ?? undefined;
      } while (pageToken);
      return events;
    },
    trace: async (workflowId, runId) => {
      const view = await api.fetchTrace({ workflowId, runId: await latestRunId(workflowId, runId) });
      if (!view.data) throw new Error(`the trace of workflow ${workflowId} could not be read`);
      // The wire's trace schema is open (a file may come from another release); this one this process just wrote.
      return view.data as TraceRecord;
    },
    feedback: async (workflowId, payload) => {
      await api.sendFeedback(workflowId, payload);
    },
    close: async () => {
      skipper?.close();
      await flowgate.close();
    },
  };
}

function recordingLogger(lines: LogLine[]): Logger {
  const record = (level: LogLine['level']) => (msg: string, fields?: LogFields) => void lines.push({ ...fields, level, msg });
  return { info: record('info'), warn: record('warn'), error: record('error') };
}
