import { randomUUID } from 'node:crypto';
import { installRuntimeLogging } from '../adapters/temporal/worker/runtimeLogging.js';
import { hostname } from 'node:os';
import { Client, type Connection, type WorkflowExecutionDescription } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { connectTemporal, type TemporalConnectionOptions } from '../adapters/temporal/connection.js';
import { TemporalEngine } from '../adapters/temporal/engine/engine.js';
import {
  assertEveryStepRegistered,
  bundleCatalog,
  callbackActivities,
  catalogActivities,
  CatalogPublisher,
  HeartbeatProgress,
  nativeConnectionOptions,
  PROGRESS_HEARTBEAT_INTERVAL,
  TraceCollector,
  runSinks,
  webhookStepDefinition,
  WorkflowDetailsCarrier,
  WorkerLifecycle,
  workflowTypeInfos,
  type CatalogBundle,
  type RunDescriptionLookup,
  type WorkerHandle,
  traceLocationActivities,
} from '../adapters/temporal/worker/index.js';
import { loadWorkerHooks, type HookRuntime } from '../adapters/hooks/index.js';
import type { Logger } from '../ports/logger.js';
import type { Clock } from '../ports/clock.js';
import type { TraceStores } from '../ports/traceStore.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import type { CallbackSender } from '../ports/callbackSender.js';
import { CALLBACK_SENDER, CLOCK, LOGGER, TRACE_STORES, WEBHOOK_SENDER } from '../ports/index.js';
import type { ExposedMetrics } from '../ports/metrics.js';
import type { TraceUploads } from '../core/trace/traceUploads.js';
import type { ClaimCheckCodec } from '../adapters/temporal/claimCheckCodec.js';
import type { Composition } from './container.js';
import { FsTraceStore } from '../adapters/fs/index.js';
import { CLAIM_CHECKS, EXPOSED_METRICS, OTEL_TRACING, TRACE_UPLOADS } from './tokens.js';
import type { OtelTracing } from '../adapters/otel/index.js';
import { importNeeding, OPTIONAL_PACKAGES } from './optionalPackages.js';

/** How long a stopping worker waits for trace uploads its closed runs left running (as long as step attempts get). */
const UPLOADS_SETTLE_MS = 10_000;
/** How long a worker waits on Temporal to describe a run (for a trace's start time, a step's workflow details). */
const DESCRIBE_DEADLINE_MS = 10_000;

/** A running flowgate worker: `identity`, `run()`, `waitUntilPublished()`, `shutdown()`. */
export type FlowgateWorker = WorkerHandle;

/** What a worker shares with the API server's composition (composeFlowgate with role `worker`). */
export interface WorkerParts {
  logger: Logger;
  clock: Clock;
  /** Where closed runs' traces go: TRACE_DIR, and S3 with TRACE_S3_BUCKET. */
  traceStores: TraceStores;
  /**
   * The trace files under TRACE_DIR, when the local store is one: a closing run learns its file's path from it, and
   * the API reads that path from the run's memo (docs/reliability.md, traces written on another host).
   */
  localTraceFiles?: FsTraceStore;
  /** Sends the calls of ctx.waitForWebhook({ url }) (signed with WEBHOOK_SIGNING_SECRET). */
  webhookSender: WebhookSender;
  /** Delivers run callbacks. */
  callbackSender: CallbackSender;
  /** Remote trace uploads still running after their run closed; a stopping worker waits for them. */
  uploads: TraceUploads;
  /**
   * Large payloads through S3 (docs/large-payloads.md): registered in the worker's and its client's data converter.
   * The API server must have the same store, or it cannot read what the worker offloaded.
   */
  claimChecks?: ClaimCheckCodec;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT: workflow spans (the bundle's interceptors, through a sink) and a span per step attempt,
   * in the trace the run's starter put in its headers (docs/operations.md, Tracing).
   */
  tracing?: OtelTracing;
  /** Counts step attempts (with the hooks' aggregations); absent with METRICS=off. Callbacks count in callbackSender. */
  metrics?: ExposedMetrics;
}

/** The worker's parts from a composition made with role `worker`. */
export function workerParts(composition: Composition): WorkerParts {
  const traceStores = composition.resolve(TRACE_STORES);
  return {
    logger: composition.resolve(LOGGER),
    clock: composition.resolve(CLOCK),
    traceStores,
    ...(traceStores.local instanceof FsTraceStore ? { localTraceFiles: traceStores.local } : {}),
    webhookSender: composition.resolve(WEBHOOK_SENDER),
    callbackSender: composition.resolve(CALLBACK_SENDER),
    uploads: composition.resolve(TRACE_UPLOADS),
    ...optional('claimChecks', composition.resolve(CLAIM_CHECKS)),
    ...optional('tracing', composition.resolve(OTEL_TRACING)),
    ...optional('metrics', composition.resolve(EXPOSED_METRICS)),
  };
}

/** `{ [key]: value }`, or nothing when the part is absent (WorkerParts' optional parts are left out, not undefined). */
function optional<K extends string, T>(key: K, value: T | undefined): { [P in K]?: T } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: T });
}

export interface CreateWorkerOptions extends WorkerParts {
  temporal: TemporalConnectionOptions;
  namespace: string;
  /** The catalog this worker serves = its task queue. */
  catalog: string;
  /** Workflow modules: every module directly in a directory, or absolute paths. Ignored when `bundle` is given. */
  workflowsDir?: string;
  workflowModules?: string[];
  /** PROJECT_DIR: the workflows of exposed packages in its node_modules join the catalog. Ignored with `bundle`. */
  projectDir?: string;
  /** MAX_RESULT_BYTES. */
  maxResultBytes: number;
  /**
   * TEMPORAL_MAX_PAYLOAD_BYTES, used only without claimChecks: a larger step or workflow result fails with
   * ResultTooLargeError instead of being refused by Temporal. Absent: no such check (a server configured for more).
   */
  maxPayloadBytes?: number;
  /** @default `<pid>@<host>/<catalog>/<random>` */
  identity?: string;
  /**
   * A prebuilt bundleCatalog result (tests bundle once and start several workers); with hooks, bundled with
   * `workflowDetailsHeader`; with tracing, with `tracing`.
   */
  bundle?: CatalogBundle;
  /** Hook files besides those the project's package.json declares (`flowgate.hookFiles` under `projectDir`). */
  hookFiles?: readonly string[];
  /** A hook handler still running after this long is abandoned and reported through onError. @default 5000 */
  hookTimeoutMs?: number;
}

/**
 * A flowgate worker for one catalog: bundles the workflow modules (steps swapped for activities), registers every
 * `<workflow>#<step>` activity, and connects to Temporal. Nothing polls until run(), which also publishes the catalog.
 * Signals are the caller's: Temporal's SDK does not stop the worker on SIGTERM, so call shutdown() from your handler
 * (it says goodbye to the catalog while still polling), as `flowgate worker` does.
 */
export async function createWorker(options: CreateWorkerOptions): Promise<FlowgateWorker> {
  const { logger } = options;
  installRuntimeLogging(logger);
  const observer = await loadWorkerHooks({ ...options, logger });
  try {
    return await assembleWorker(options, logger, observer);
  } catch (error) {
    // The hooks listen to diagnostics channels and event sinks: a worker that never came to be must not leave them.
    await observer?.close();
    throw error;
  }
}

async function assembleWorker(options: CreateWorkerOptions, logger: Logger, observer: HookRuntime | undefined): Promise<FlowgateWorker> {
  const withHooks = observer !== undefined;
  const maxPayloadBytes = options.claimChecks ? undefined : options.maxPayloadBytes;
  const bundle =
    options.bundle ??
    (await bundleCatalog({
      ...workflowSource(options),
      ...(options.projectDir ? { projectDir: options.projectDir } : {}),
      maxResultBytes: options.maxResultBytes,
      ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }),
      workflowDetailsHeader: withHooks,
      tracing: options.tracing !== undefined,
      logger,
    }));
  if (withHooks && !bundle.workflowDetailsHeader) {
    throw new TypeError('createWorker: a worker with hooks needs a bundle built with workflowDetailsHeader: true');
  }
  if ((bundle.tracing ?? false) !== (options.tracing !== undefined)) {
    throw new TypeError(`createWorker: the bundle was built with tracing ${bundle.tracing ? 'on' : 'off'}, this worker has it ${options.tracing ? 'on' : 'off'}`);
  }
  const tracing = options.tracing
    ? (await importNeeding(() => import('../adapters/temporal/worker/tracing.js'), OPTIONAL_PACKAGES.temporalTracing, 'Tracing on a Temporal worker (OTEL_EXPORTER_OTLP_ENDPOINT)')).workerTracing(options.tracing)
    : undefined;
  if (bundle.maxPayloadBytes !== maxPayloadBytes) {
    throw new TypeError(`createWorker: the bundle was built with maxPayloadBytes ${String(bundle.maxPayloadBytes)}, this worker needs ${String(maxPayloadBytes)}`);
  }
  const dataConverter = options.claimChecks ? { dataConverter: { payloadCodecs: [options.claimChecks] } } : {};
  const stepRegistration = { workflows: bundle.workflows, steps: bundle.activities, webhookStep: webhookStepDefinition(options.webhookSender) };
  const identity = options.identity ?? `${process.pid}@${hostname()}/${options.catalog}/${randomUUID().slice(0, 8)}`;

  const nativeConnection = await NativeConnection.connect(nativeConnectionOptions(options.temporal));
  let clientConnection: Connection | undefined;
  const progress = new HeartbeatProgress();
  try {
    clientConnection = await connectTemporal(options.temporal);
    const client = new Client({ connection: clientConnection, namespace: options.namespace, ...dataConverter });
    const { uploads, traceStores, clock } = options;
    // Both lookups have a fallback (the started event's time, details without parents): a Temporal that does not
    // answer must not hold a step's hooks or a run's trace for longer than this.
    const describe = (workflowId: string, runId: string) =>
      client.withDeadline(Date.now() + DESCRIBE_DEADLINE_MS, () => client.workflow.getHandle(workflowId, runId).describe());
    const traces = new TraceCollector(traceStores, logger, async (workflowId, runId) => (await describe(workflowId, runId)).startTime, uploads);
    const details = new WorkflowDetailsCarrier(async (workflowId, runId) => describedRun(await describe(workflowId, runId), options.namespace), logger);
    const activities = catalogActivities({
      ...stepRegistration,
      traces,
      progress,
      ...(observer ? { hooks: { observer, details } } : {}),
      ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }),
      ...(options.metrics ? { metrics: options.metrics } : {}),
    });
    // Every step the bundle's workflows can reach must have its activity, or runs would fail at the first call.
    assertEveryStepRegistered(stepRegistration, activities);
    // Run callbacks read the closed run's result as the API does, with the engine adapter on this worker's client.
    // With claim checks it must resolve them too: the result and input it reads come raw from history.
    const engine = new TemporalEngine({
      client,
      namespace: options.namespace,
      logger,
      clock,
      ...(options.claimChecks ? { claimChecks: options.claimChecks } : {}),
    });
    Object.assign(activities, callbackActivities({ engine, traces: traceStores, logger, clock, sender: options.callbackSender }));
    // Run as a local activity by each run that closes on its own: its trace's path travels with the run (its memo).
    Object.assign(activities, traceLocationActivities({ store: options.localTraceFiles, traces }));
    const worker = await Worker.create({
      connection: nativeConnection,
      namespace: options.namespace,
      taskQueue: options.catalog,
      identity,
      workflowBundle: bundle.workflowBundle,
      activities,
      // Codecs run in the worker's main thread, outside the workflow sandbox: workflow code sees the original values.
      ...dataConverter,
      sinks: { ...runSinks({ traces, logger, ...(observer ? { observer } : {}) }), ...tracing?.sinks },
      interceptors: {
        // Tracing first: the hooks' attempt runs inside the attempt's span.
        activity: [...(tracing ? [tracing.activityInterceptor] : []), ...(observer ? [details.interceptor] : [])],
      },
      // Let in-flight step attempts finish on shutdown (only steps that report progress heartbeat and could see a cancel).
      shutdownGraceTime: '10 seconds',
      defaultHeartbeatThrottleInterval: PROGRESS_HEARTBEAT_INTERVAL,
    });
    const publisher = new CatalogPublisher(client, options.catalog, identity, workflowTypeInfos(bundle.workflows, logger));
    const connection = clientConnection;
    return new WorkerLifecycle(identity, worker, publisher, logger, async () => {
      await uploads.settle(UPLOADS_SETTLE_MS);
      progress.close();
      await observer?.close();
      await connection.close();
      await nativeConnection.close();
    });
  } catch (error) {
    progress.close();
    await clientConnection?.close().catch(() => {});
    await nativeConnection.close().catch(() => {});
    throw error;
  }
}

/**
 * What describe tells of a run, as workflowDetails (a run that is its own root has no `root`; flowgate starts children
 * in their parent's namespace).
 */
function describedRun(description: WorkflowExecutionDescription, namespace: string): Awaited<ReturnType<RunDescriptionLookup>> {
  const { parentExecution: parent, rootExecution: root } = description;
  return {
    startTime: description.startTime.getTime(),
    runStartTime: (description.executionTime ?? description.startTime).getTime(),
    ...(parent ? { parent: { runId: parent.runId ?? '', workflowId: parent.workflowId ?? '', namespace } } : {}),
    ...(root && root.runId !== description.runId ? { root: { runId: root.runId ?? '', workflowId: root.workflowId ?? '' } } : {}),
  };
}

function workflowSource(options: CreateWorkerOptions): { workflowsDir: string } | { workflowModules: string[] } {
  if (options.workflowModules) return { workflowModules: options.workflowModules };
  if (options.workflowsDir) return { workflowsDir: options.workflowsDir };
  throw new TypeError('createWorker: give workflowsDir, workflowModules or a prebuilt bundle');
}
