import type { FlowgateApi } from '../core/api/flowgateApi.js';
import type { Logger } from '../ports/logger.js';
import { LOGGER } from '../ports/index.js';
import { startMetricsListener, type MetricsListener } from '../adapters/metrics/index.js';
import type { WorkflowEngine } from '../ports/engine.js';
import { startHttpServer, type RunningHttpServer } from '../adapters/http/index.js';
import type { Composition } from './container.js';
import { parseConfig, type EnvInput, type FlowgateConfig } from './config.js';
import { EXPOSED_METRICS, HTTP_APP, RUN_WAITS_END } from './tokens.js';
import type { ReloadOutcome } from '../adapters/access/keyFileRegistry.js';
import { loadEmbeddedWorker, type WorkerSpec } from './workers/workerSpecs.js';
import { assembleFlowgate } from './embed/createFlowgate.js';

export type { WorkerSpec } from './workers/workerSpecs.js';

export interface FlowgateServerOptions {
  /** Environment to read the configuration from. @default process.env */
  env?: EnvInput;
  /**
   * Workers of the embedded engine. @default one worker for DEFAULT_CATALOG with the workflows of WORKFLOWS_DIR and
   * of the exposed packages installed in PROJECT_DIR.
   * Ignored on Temporal, where workers run in their own processes (`flowgate worker`).
   */
  workers?: WorkerSpec[];
  logger?: Logger;
}

export interface FlowgateServer {
  url: string;
  /** METRICS_PORT: where GET /metrics is served without the token. */
  metricsUrl: string | undefined;
  config: FlowgateConfig;
  api: FlowgateApi;
  engine: WorkflowEngine;
  /** The durable embedded engine's data directory (DATA_DIR), when that is the engine. */
  dataDir: string | undefined;
  /** Embedded engine only: runs open now (running, or restored and waiting for their worker). */
  openRunCount(): number;
  /** Embedded engine only: stops the worker of a catalog (its catalog becomes known-but-unavailable), or starts it again. */
  stopWorker(catalog: string): void;
  startWorker(catalog: string): void;
  /**
   * Reads API_KEYS_FILE again (what SIGHUP does to `flowgate serve`): `reloaded`, `unchanged`, or `kept` when the file
   * cannot be used (the previous keys stay; one error line is logged). Undefined without a key file.
   */
  reloadAccessKeys(): Promise<ReloadOutcome | undefined>;
  /**
   * Graceful: stops accepting, lets in-flight requests finish within SHUTDOWN_GRACE_MS. Safe to call twice. Resolves
   * with the embedded engine's runs still open when it stopped (the durable store resumes them at the next start).
   */
  close(): Promise<ServerClosed>;
}

/** What a server left when it stopped. */
export interface ServerClosed {
  /** Embedded engine: runs open when it stopped; undefined on Temporal, whose runs never depended on this process. */
  openRunsLeft: number | undefined;
}

/**
 * How long before the end of the grace period the run-and-wait calls still waiting are answered (408, the run not
 * cancelled), so their answers are out before the connections are closed. A fifth of the grace period when that is
 * shorter.
 */
export const RUN_WAIT_ANSWER_MARGIN_MS = 1_000;

/** When, after shutdown starts, the run-and-wait calls still waiting stop waiting. */
export function runWaitCutOffMs(graceMs: number): number {
  return Math.max(0, graceMs - Math.min(RUN_WAIT_ANSWER_MARGIN_MS, graceMs / 5));
}

/**
 * The bundled server (`flowgate serve`): the flowgate createFlowgate assembles, plus its listeners, pushed onto the
 * same closers: closing stops the listeners first (in-flight requests get the grace period), then the rest in reverse.
 */
export async function startFlowgateServer(options: FlowgateServerOptions = {}): Promise<FlowgateServer> {
  const config = parseConfig(options.env ?? process.env);
  const { flowgate, composition, workers } = await assembleFlowgate(config, options.logger ? { logger: options.logger } : {}, {}, async ({ resolve }) =>
    options.workers ?? [await loadEmbeddedWorker({ catalog: config.defaultCatalog, workflowsDir: config.workflowsDir, projectDir: config.projectDir, logger: resolve(LOGGER) })],
  );
  const logger = composition.resolve(LOGGER);
  if (!config.authToken && !config.apiKeysFile) {
    logger.warn('neither API_AUTH_TOKEN nor API_KEYS_FILE is set: every request is accepted without authentication (local development only)');
  }
  const { closers } = composition;
  const runWaitsEnd = composition.resolve(RUN_WAITS_END);
  let listening: { http: RunningHttpServer; metrics: MetricsListener | undefined };
  try {
    listening = await startListeners(config, composition, runWaitsEnd);
  } catch (error) {
    return closers.rollBack(error);
  }
  const { http, metrics: metricsListener } = listening;
  logger.info('flowgate listening', {
    url: http.url,
    ...(metricsListener ? { metricsUrl: metricsListener.url } : {}),
    engine: flowgate.engine.kind,
    catalogs: (workers?.specs ?? []).map((worker) => ({ catalog: worker.catalog, workflows: worker.workflows.map((w) => w.name) })),
  });

  const onTemporal = (): never => {
    throw new Error('on Temporal, workers run in their own processes (flowgate worker)');
  };
  let closing: Promise<ServerClosed> | undefined;
  const embedded = composition.embeddedEngine;
  return {
    url: http.url,
    metricsUrl: metricsListener?.url,
    config,
    api: flowgate.api,
    engine: flowgate.engine,
    dataDir: embedded?.storeKind === 'sqlite' ? config.dataDir : undefined,
    openRunCount: () => embedded?.openRunCount ?? 0,
    stopWorker: (catalog) => (workers ? workers.stop(catalog) : onTemporal()),
    startWorker: (catalog) => (workers ? workers.start(catalog) : onTemporal()),
    reloadAccessKeys: () => flowgate.reloadAccessKeys(),
    close: () => (closing ??= flowgate.close().then(() => ({ openRunsLeft: workers?.openRunsLeft }))),
  };
}

/** METRICS_PORT's listener, then the API's, each pushed onto the composition's closers once it listens. */
async function startListeners(
  config: FlowgateConfig,
  composition: Composition,
  runWaitsEnd: AbortController,
): Promise<{ http: RunningHttpServer; metrics: MetricsListener | undefined }> {
  const exposed = composition.resolve(EXPOSED_METRICS);
  // Refused by the configuration's checks otherwise (METRICS_PORT with METRICS=off).
  const metrics = config.metrics.port !== undefined && exposed ? await startMetricsListener(exposed, config.listener.host, config.metrics.port, { compression: config.http.compression }) : undefined;
  if (metrics) composition.closers.push('metrics listener', () => metrics.close());
  const http = await startHttpServer({ app: composition.resolve(HTTP_APP), ...config.listener });
  composition.closers.push('HTTP listener', async (remainingMs) => {
    // In-flight requests get the grace period; run-and-wait calls whose runs are still open by the cut-off are
    // answered then, instead of losing their answer to the force-close at the end of it.
    const cutOff = setTimeout(() => runWaitsEnd.abort(), runWaitCutOffMs(remainingMs));
    try {
      await http.close(remainingMs);
    } finally {
      clearTimeout(cutOff);
      runWaitsEnd.abort();
    }
  });
  return { http, metrics };
}
