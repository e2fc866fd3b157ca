import 'reflect-metadata';
import { setMaxListeners } from 'node:events';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { createFlowgateApi } from '../core/createFlowgateApi.js';
import { recordTrace } from '../core/trace/recordTrace.js';
import { TraceUploads } from '../core/trace/traceUploads.js';
import type { FlowgateApi } from '../core/api/flowgateApi.js';
import { WORKFLOW_ENGINE, TRACE_STORES, CLOCK, ID_GENERATOR, DIGEST, LOGGER, WEBHOOK_SENDER, CALLBACK_SENDER, TRACING, noMetrics, type Token } from '../ports/index.js';
import { noTracing, type Tracing } from '../ports/tracing.js';
import type { ExposedMetrics } from '../ports/metrics.js';
import { MeteredCallbackSender, MeteredEngine, PromMetrics } from '../adapters/metrics/index.js';
import type { CallbackSender } from '../ports/callbackSender.js';
import type { Clock } from '../ports/clock.js';
import type { WorkflowEngine } from '../ports/engine.js';
import type { IdGenerator } from '../ports/ids.js';
import type { Logger } from '../ports/logger.js';
import type { TraceStore, TraceStores } from '../ports/traceStore.js';
import type { WebhookSender } from '../ports/webhookSender.js';
import type { EngineStore } from '../adapters/embedded/store/engineStore.js';
import { CallbackDeliveries, EmbeddedEngine } from '../adapters/embedded/index.js';
import { systemClock, randomIds, sha256Digest } from '../adapters/system/index.js';
import { FsTraceStore } from '../adapters/fs/index.js';
import { shareTraceReads } from '../core/trace/sharedReads.js';
import { PinoLogger } from '../adapters/log/index.js';
import { FetchWebhookSender } from '../adapters/webhook/index.js';
import { createHttpApp } from '../adapters/http/index.js';
import type { S3TraceStore } from '../adapters/s3/index.js';
import type { OtelTracing } from '../adapters/otel/index.js';
import type { FlowgateConfig } from './config.js';
import { openAccessKeys } from './accessKeys.js';
import type { KeyFileEntry } from '../adapters/access/keyFile.js';
import { importNeeding, OPTIONAL_PACKAGES } from './optionalPackages.js';
import { ACCESS_KEYS, CALLBACK_DELIVERIES, CLAIM_CHECKS, CONFIG, FLOWGATE_API, HTTP_APP, EMBEDDED_ENGINE, EXPOSED_METRICS, OTEL_TRACING, RUN_WAITS_END, TRACE_UPLOADS } from './tokens.js';
import { Closers } from './closers.js';

/** The parts a caller may bring in place of those the configuration builds, each typed by its port. */
export interface FlowgateParts {
  /**
   * An engine made beforehand (say `await TemporalEngine.connect(...)` from flowgate/adapters/temporal); its workers
   * run elsewhere. @default the embedded engine, or Temporal when the configuration names one (TEMPORAL_ADDRESS)
   */
  engine?: WorkflowEngine | undefined;
  /** Where closed runs' traces are written and read. @default JSON files under TRACE_DIR */
  traceStore?: TraceStore | undefined;
  /** A second, remote destination for traces. @default S3 when TRACE_S3_BUCKET is set, else none */
  remoteTraceStore?: TraceStore | undefined;
  /** Time for the engine's timers and the API's clocks. @default the system clock */
  clock?: Clock | undefined;
  /** Run and request ids. @default random UUIDs */
  ids?: IdGenerator | undefined;
  /** @default JSON lines on stdout at LOG_LEVEL */
  logger?: Logger | undefined;
  /** Sends the calls of ctx.waitForWebhook({ url }). @default HTTP POSTs, signed with WEBHOOK_SIGNING_SECRET */
  webhookSender?: WebhookSender | undefined;
  /** Delivers run callbacks (callbackUrl). @default HTTP POSTs, signed with WEBHOOK_SIGNING_SECRET */
  callbackSender?: CallbackSender | undefined;
  /**
   * Spans of requests and of the embedded engine's runs and steps. Temporal's interceptors are wired only for the
   * tracing the configuration builds. @default OpenTelemetry over OTLP when OTEL_EXPORTER_OTLP_ENDPOINT is set, else none
   */
  tracing?: Tracing | undefined;
  /** What is observed and served at GET /metrics. @default Prometheus metrics of this composition, unless METRICS=off */
  metrics?: ExposedMetrics | undefined;
}

export interface ComposeOptions {
  /** `api`: the engine, the use cases and the HTTP app. `worker`: what a Temporal worker shares with them. */
  role?: 'api' | 'worker';
  /** The HTTP app's mount prefix (HttpAppOptions.basePath). */
  basePath?: string;
  /** Wraps the engine the use cases see (flowgate/testing skips time while someone waits on a run). */
  decorateEngine?: (engine: WorkflowEngine) => WorkflowEngine;
  /** API keys besides API_KEYS_FILE's (createFlowgate's `apiKeys`), as the file's entries. */
  apiKeys?: readonly KeyFileEntry[];
}

/** One flowgate's wiring: every part resolved by token from one tsyringe container. */
export interface Composition {
  readonly config: FlowgateConfig;
  /** The part a token stands for, with the token's type; a part that may be absent has a `T | undefined` token. */
  resolve<T>(key: Token<T>): T;
  /** The embedded engine when it is the one in use (its workers are registered on it). */
  readonly embeddedEngine: EmbeddedEngine | undefined;
  /**
   * What this flowgate started, in order: the composition's own parts, onto which the embedded workers and the
   * listeners of the bundled server are pushed as they start. Closing runs them in reverse.
   */
  readonly closers: Closers;
  /** Releases what the parts hold: deliveries, engines, connections; waits for trace uploads up to `graceMs`. */
  close(graceMs: number): Promise<void>;
}

/** Resolves a token with the type it was declared with. */
function resolveToken<T>(container: DependencyContainer, key: Token<T>): T {
  return container.resolve<T>(key);
}

/** Registers a part that may be absent: tsyringe refuses `useValue: undefined`, so a factory answers it. */
function optionalPart<T>(value: T | undefined): { useFactory: () => T | undefined } {
  return { useFactory: () => value };
}

/**
 * THE composition root of the bundled server (`flowgate serve`), the Temporal worker (`flowgate worker`),
 * createFlowgate and the testing kit: it wires adapters to ports with tsyringe factories (no decorators, so core and
 * adapters stay framework-free), in a child container per call, so several can live in one process. What needs I/O
 * or an optional package (the S3 client, the Temporal connection) is loaded first, only when configured, then
 * registered like the rest. Every token the role needs is resolved before this returns: a broken registration fails
 * at start, not on the first request.
 */
export async function composeFlowgate(config: FlowgateConfig, parts: FlowgateParts = {}, options: ComposeOptions = {}): Promise<Composition> {
  // Each part that holds something is pushed as it is made: a start that fails releases exactly those, in reverse.
  const closers = new Closers();
  try {
    return await composeParts(rootContainer.createChildContainer(), closers, config, parts, options);
  } catch (error) {
    return closers.rollBack(error);
  }
}

async function composeParts(
  container: DependencyContainer,
  closers: Closers,
  config: FlowgateConfig,
  parts: FlowgateParts,
  options: ComposeOptions,
): Promise<Composition> {
  const role = options.role ?? 'api';
  const once = <T>(factory: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory<T>(factory) });
  const resolve = <T>(key: Token<T>): T => resolveToken(container, key);

  container.register(CONFIG, { useValue: config });
  container.register(LOGGER, once(() => parts.logger ?? new PinoLogger({ level: config.logLevel })));
  // Last of all: the shutdown's own lines are written before the process may exit.
  closers.push('logger', async () => resolve(LOGGER).flush?.());
  container.register(CLOCK, { useValue: parts.clock ?? systemClock });
  container.register(ID_GENERATOR, { useValue: parts.ids ?? randomIds });
  container.register(DIGEST, { useValue: sha256Digest });
  // A registry per composition: several flowgates in one process (tests, embedding) keep their own counts. A Temporal
  // worker keeps its own too (step attempts, callbacks), served beside the SDK's (composition/cli/workerProcess.ts).
  const metrics = config.metrics.enabled ? (parts.metrics ?? new PromMetrics()) : undefined;
  container.register(EXPOSED_METRICS, optionalPart(metrics));
  const metered = metrics ?? noMetrics;

  // Tracing only when configured: the OpenTelemetry SDK is an optional package, and off it is not even loaded.
  const otel = !parts.tracing && config.tracing
    ? await importNeeding(() => import('../adapters/otel/index.js'), OPTIONAL_PACKAGES.tracing, 'Tracing (OTEL_EXPORTER_OTLP_ENDPOINT)')
    : undefined;
  const ownTracing = otel && config.tracing ? new otel.OtelTracing(config.tracing) : undefined;
  container.register(OTEL_TRACING, optionalPart(ownTracing));
  container.register(TRACING, { useValue: parts.tracing ?? ownTracing ?? noTracing });
  // Closed after every other part: the spans of everything closed before are sent before it stops.
  if (ownTracing) {
    closers.push('tracing', () =>
      ownTracing.shutdown().catch((error: unknown) =>
        resolve(LOGGER).warn('tracing: the last spans could not be sent', { error: error instanceof Error ? error.message : String(error) }),
      ),
    );
  }

  // S3 only when configured: @aws-sdk/client-s3 is an optional package.
  const s3 = !parts.remoteTraceStore && config.remoteTraces
    ? await importNeeding(() => import('../adapters/s3/index.js'), OPTIONAL_PACKAGES.s3, 'Remote traces (TRACE_S3_BUCKET)')
    : undefined;
  const s3Store = s3 && config.remoteTraces ? new s3.S3TraceStore({ ...config.remoteTraces, logger: resolve(LOGGER) }) : undefined;
  if (s3Store) closers.push('remote trace store', () => s3Store.close());
  container.register(
    TRACE_STORES,
    once((): TraceStores => {
      const local = parts.traceStore ?? new FsTraceStore({ directory: config.traceDir });
      const remote = parts.remoteTraceStore ?? s3Store;
      // The API's concurrent trace-log readers of one trace share one parsed copy (docs/reliability.md, greedy
      // clients); a worker only writes.
      const served = role === 'api' ? shareTraceReads : <T>(store: T) => store;
      return { local: served(local), ...(remote ? { remote: served(remote) } : {}) };
    }),
  );
  // Payloads over the threshold travel through the trace bucket (docs/large-payloads.md); API and workers must agree.
  const onTemporal = !parts.engine && config.engine === 'temporal';
  const claimChecks = s3Store && (onTemporal || role === 'worker') ? (await import('./claimChecks.js')).claimCheckCodec(s3Store as S3TraceStore, config) : undefined;
  container.register(CLAIM_CHECKS, optionalPart(claimChecks));

  // The outbound senders' connection pools are released with the rest.
  const outboundSender = (): FetchWebhookSender => {
    const sender = new FetchWebhookSender({
      allowlist: config.outboundAllowlist,
      ...(config.webhookSigning ? { signingSecrets: config.webhookSigning.secrets, legacySignature: config.webhookSigning.legacyHeaders } : {}),
    });
    closers.push('outbound sender', () => sender.close());
    return sender;
  };
  container.register(WEBHOOK_SENDER, once(() => parts.webhookSender ?? outboundSender()));
  // One signer serves both ports: run callbacks are signed exactly like webhook calls (docs/callbacks.md), and reach
  // only the addresses webhook calls may.
  container.register(
    CALLBACK_SENDER,
    once((c) => {
      const sender = parts.callbackSender ?? (parts.webhookSender ? outboundSender() : (resolveToken(c, WEBHOOK_SENDER) as FetchWebhookSender));
      return metrics ? new MeteredCallbackSender(sender, metrics) : sender;
    }),
  );
  container.register(TRACE_UPLOADS, once((c) => new TraceUploads({ clock: resolveToken(c, CLOCK), logger: resolveToken(c, LOGGER) })));
  if (role === 'worker') {
    container.register(EMBEDDED_ENGINE, optionalPart<EmbeddedEngine>(undefined));
    resolveAtStart(container, role, [LOGGER, CLOCK, TRACING, TRACE_STORES, WEBHOOK_SENDER, CALLBACK_SENDER, TRACE_UPLOADS, EXPOSED_METRICS, CLAIM_CHECKS, OTEL_TRACING]);
    closers.push('trace uploads', (remainingMs) => resolve(TRACE_UPLOADS).settle(remainingMs));
    return composition(container, config, closers);
  }
  // Read first, before an engine connects or a data directory is taken: a key file that cannot be used fails the
  // start in one line, with nothing left to release but what was made above.
  const accessKeys = await openAccessKeys(config, options.apiKeys, resolve(LOGGER));
  closers.push('access keys', () => accessKeys.close());
  container.register(ACCESS_KEYS, { useValue: accessKeys });

  container.register(
    CALLBACK_DELIVERIES,
    once(
      (c) =>
        new CallbackDeliveries(() => ({
          engine: resolveToken(c, WORKFLOW_ENGINE),
          traces: resolveToken(c, TRACE_STORES),
          logger: resolveToken(c, LOGGER),
          clock: resolveToken(c, CLOCK),
          sender: resolveToken(c, CALLBACK_SENDER),
        })),
    ),
  );
  // An engine connected here (Temporal) is closed by close(); one the caller brought stays the caller's to close.
  const connected = onTemporal ? await connectTemporalEngine(container, config, ownTracing) : undefined;
  const engine = parts.engine ?? connected;
  if (connected) closers.push('Temporal connection', () => connected.close());
  // The durable embedded engine's store: opened (and the data directory taken) before anything is registered, so a
  // directory it cannot use fails the start in one line. The engine closes it.
  const store = !engine && config.engine === 'embedded' ? await openDurableStore(config, resolve(LOGGER), resolve(CLOCK), closers) : undefined;
  if (engine) {
    container.register(EMBEDDED_ENGINE, optionalPart<EmbeddedEngine>(undefined));
    container.register(WORKFLOW_ENGINE, { useValue: meteredEngine(options.decorateEngine ? options.decorateEngine(engine) : engine, metrics) });
  } else {
    // One instance behind both tokens: the concrete engine (workers register on it) and the port the use cases call.
    const embeddedEngine = instanceCachingFactory((c) => {
      const traces = resolveToken(c, TRACE_STORES);
      const logger = resolveToken(c, LOGGER);
      const uploads = resolveToken(c, TRACE_UPLOADS);
      return new EmbeddedEngine({
        ...(store ? { store } : {}),
        clock: resolveToken(c, CLOCK),
        ids: resolveToken(c, ID_GENERATOR),
        logger,
        webhookSender: resolveToken(c, WEBHOOK_SENDER),
        tracing: resolveToken(c, TRACING),
        metrics: metered,
        maxClosedRuns: config.memoryMaxClosedRuns,
        maxClosedBytes: config.memoryMaxClosedBytes,
        maxHistoryBytes: config.memoryMaxHistoryBytes,
        historyPageMaxBytes: config.historyPageMaxBytes,
        // Keyed starts' records outlive their runs until the answers they keep expire (docs/idempotency.md).
        idempotencyRetentionMs: config.idempotencyRetentionSeconds * 1000,
        maxIdempotencyBytes: config.memoryMaxIdempotencyBytes,
        // A run's close waits for its local trace, and for the remote upload only briefly (core/trace/traceUploads.ts).
        onRunClosed: (closed) => {
          metered.runClosed(closed.run.workflowName, closed.run.status);
          return recordTrace(traces, logger, closed, uploads);
        },
        onRunCallback: (run, target) => resolveToken(c, CALLBACK_DELIVERIES).start(run, target),
      });
    });
    container.register(EMBEDDED_ENGINE, { useFactory: embeddedEngine });
    container.register(WORKFLOW_ENGINE, once((c) => meteredEngine((options.decorateEngine ?? ((memory) => memory))(embeddedEngine(c)), metrics)));
  }
  // Every waiting POST /workflow/run listens to it: thousands at once are expected, not a leak.
  const runWaitsEnd = new AbortController();
  setMaxListeners(0, runWaitsEnd.signal);
  container.register(RUN_WAITS_END, { useValue: runWaitsEnd });
  container.register(
    FLOWGATE_API,
    once(
      (c): FlowgateApi =>
        createFlowgateApi({
          engine: resolveToken(c, WORKFLOW_ENGINE),
          traces: resolveToken(c, TRACE_STORES),
          clock: resolveToken(c, CLOCK),
          ids: resolveToken(c, ID_GENERATOR),
          digest: resolveToken(c, DIGEST),
          logger: resolveToken(c, LOGGER),
          metrics: metered,
          defaultCatalog: config.defaultCatalog,
          callbackRetryForMs: config.callbackRetryForMs,
          outboundAllowlist: config.outboundAllowlist,
          idempotencyRetentionMs: config.idempotencyRetentionSeconds * 1000,
          shutdownSignal: runWaitsEnd.signal,
        }),
    ),
  );
  container.register(
    HTTP_APP,
    once((c) =>
      createHttpApp({
        api: resolveToken(c, FLOWGATE_API),
        ...(accessKeys.registry ? { accessKeys: accessKeys.registry } : {}),
        logger: resolveToken(c, LOGGER),
        ids: resolveToken(c, ID_GENERATOR),
        tracing: resolveToken(c, TRACING),
        ...(metrics ? { metrics } : {}),
        ...config.http,
        ...(options.basePath === undefined ? {} : { basePath: options.basePath }),
      }),
    ),
  );
  resolveAtStart(container, role, [
    LOGGER,
    CLOCK,
    ID_GENERATOR,
    DIGEST,
    TRACING,
    TRACE_STORES,
    TRACE_UPLOADS,
    WEBHOOK_SENDER,
    CALLBACK_SENDER,
    CALLBACK_DELIVERIES,
    EMBEDDED_ENGINE,
    WORKFLOW_ENGINE,
    FLOWGATE_API,
    HTTP_APP,
    EXPOSED_METRICS,
    CLAIM_CHECKS,
    OTEL_TRACING,
    ACCESS_KEYS,
    RUN_WAITS_END,
  ]);
  // Closed in reverse: run waits end, then deliveries, then the engine; its runs' trace uploads get what is left of
  // the grace period.
  closers.push('trace uploads', (remainingMs) => resolve(TRACE_UPLOADS).settle(remainingMs));
  const embeddedEngine = resolve(EMBEDDED_ENGINE);
  if (embeddedEngine) closers.push('embedded engine', () => embeddedEngine.close());
  closers.push('callback deliveries', () => resolve(CALLBACK_DELIVERIES).close());
  closers.push('run waits', () => runWaitsEnd.abort());
  return composition(container, config, closers);
}

/**
 * Opens the durable store on DATA_DIR (loaded only now: the other engines never load node:sqlite). A start that fails
 * after it closes what it opened, so the directory is free again.
 */
async function openDurableStore(config: FlowgateConfig, logger: Logger, clock: Clock, closers: Closers): Promise<EngineStore> {
  const { openSqliteStore } = await import('../adapters/embedded/store/sqlite/openSqliteStore.js');
  const store = await openSqliteStore({
    dataDir: config.dataDir,
    sync: config.dataSync,
    clock,
    logger,
    retentionMs: config.runRetentionMs,
    idempotencyRetentionMs: config.idempotencyRetentionSeconds * 1000,
  });
  // Closed by the engine; this closes it when the composition fails before the engine is made (safe to call twice).
  closers.push('durable store', () => store.close());
  return store;
}

/** Every engine call timed, by operation (adapters/metrics): one decorator, outermost, so it times what the use cases wait for. */
function meteredEngine(engine: WorkflowEngine, metrics: ExposedMetrics | undefined): WorkflowEngine {
  return metrics ? new MeteredEngine(engine, metrics) : engine;
}

/** Connects to Temporal (the client adapter is loaded only now: the embedded engine never loads the Temporal SDK). */
async function connectTemporalEngine(
  container: DependencyContainer,
  config: FlowgateConfig,
  tracing: OtelTracing | undefined,
): Promise<WorkflowEngine & { close(): Promise<void> }> {
  const temporal = config.temporal!;
  const { TemporalEngine } = await import('../adapters/temporal/index.js');
  // The request's span is active when the engine starts a run: this interceptor puts it in the run's headers.
  const clientInterceptors = tracing
    ? (
        await importNeeding(() => import('../adapters/temporal/tracing.js'), OPTIONAL_PACKAGES.temporalTracing, 'Tracing on Temporal (OTEL_EXPORTER_OTLP_ENDPOINT)')
      ).tracingClientInterceptors(tracing.tracer)
    : undefined;
  const claimChecks = resolveToken(container, CLAIM_CHECKS);
  return TemporalEngine.connect({
    address: temporal.address,
    namespace: temporal.namespace,
    ...(temporal.apiKey ? { apiKey: temporal.apiKey } : {}),
    ...(temporal.tls !== undefined ? { tls: temporal.tls } : {}),
    transport: temporal.transport,
    maxMessageBytes: config.maxResultBytes,
    // The embedded engine has no per-payload limit; on Temporal, large payloads go to S3 or are refused by name.
    ...(claimChecks ? { claimChecks } : { maxPayloadBytes: config.payloads.temporalMaxPayloadBytes }),
    ...(config.pageTokenSecret ? { pageTokenSecret: config.pageTokenSecret } : {}),
    historyPageMaxBytes: config.historyPageMaxBytes,
    logger: resolveToken(container, LOGGER),
    clock: resolveToken(container, CLOCK),
    ...(clientInterceptors ? { clientInterceptors } : {}),
  });
}

/**
 * Resolves every token the role needs now, so a missing or broken registration fails the start in one line naming
 * the part, not the first request.
 */
function resolveAtStart(container: DependencyContainer, role: string, tokens: readonly Token<unknown>[]): void {
  for (const key of tokens) {
    if (!container.isRegistered(key)) throw new Error(`flowgate's composition (${role}) registers no ${key.description ?? String(key)}`);
    container.resolve(key);
  }
}

function composition(container: DependencyContainer, config: FlowgateConfig, closers: Closers): Composition {
  return {
    config,
    embeddedEngine: resolveToken(container, EMBEDDED_ENGINE),
    closers,
    resolve: (key) => resolveToken(container, key),
    close: (graceMs) => closers.close(graceMs),
  };
}
