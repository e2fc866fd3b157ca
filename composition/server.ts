import { setMaxListeners } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { FlowgateApi } from '../core/api/flowgateApi.js';
import type { Logger } from '../ports/logger.js';
import { ID_GENERATOR, WORKFLOW_ENGINE } from '../ports/index.js';
import type { MemoryEngine } from '../adapters/memory/index.js';
import type { WorkflowEngine } from '../ports/engine.js';
import { JsonLogger } from '../adapters/log/index.js';
import { S3TraceStore } from '../adapters/s3/index.js';
import { systemClock } from '../adapters/system/index.js';
import { startHttpServer } from '../adapters/http/index.js';
import { buildContainer, resolveToken } from './container.js';
import { parseConfig, type EnvInput, type FlowgateConfig } from './config.js';
import { CALLBACK_DELIVERIES, CONFIG, FLOWGATE_API, MEMORY_ENGINE, OUTBOUND_SENDER, TRACE_UPLOADS } from './tokens.js';
import { loadEmbeddedWorker, type WorkerSpec } from './embeddedWorker.js';

/** The example workflows `npm start` serves when WORKFLOWS_DIR is not set. */
export const EXAMPLE_WORKFLOWS_DIR = fileURLToPath(new URL('../examples/workflows/', import.meta.url));

export type { WorkerSpec } from './embeddedWorker.js';

export interface FlowgateServerOptions {
  /** Environment to read the configuration from. @default process.env */
  env?: EnvInput;
  /**
   * Workers of the embedded engine. @default one worker for DEFAULT_CATALOG with the workflows of WORKFLOWS_DIR and
   * of the exposed packages installed in PROJECT_DIR.
   * Ignored on Temporal, where workers run in their own processes (`npm run worker`).
   */
  workers?: WorkerSpec[];
  logger?: Logger;
}

export interface FlowgateServer {
  url: string;
  config: FlowgateConfig;
  api: FlowgateApi;
  engine: WorkflowEngine;
  /** Embedded engine only: stops the worker of a catalog (its catalog becomes known-but-unavailable), or starts it again. */
  stopWorker(catalog: string): void;
  startWorker(catalog: string): void;
  /** Graceful: stops accepting, lets in-flight requests finish within SHUTDOWN_GRACE_MS. Safe to call twice. */
  close(): Promise<void>;
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

export async function startFlowgateServer(options: FlowgateServerOptions = {}): Promise<FlowgateServer> {
  const config = parseConfig(options.env ?? process.env);
  const logger = options.logger ?? new JsonLogger({ level: config.logLevel });
  const onTemporal = config.temporal !== undefined && config.engine === 'temporal';
  // Made here, before the container, because the Temporal engine's claim checks (large payloads) share its client.
  const remoteTraceStore = onTemporal && config.remoteTraces ? new S3TraceStore({ ...config.remoteTraces, logger }) : undefined;
  // Imported only when used: the embedded engine never loads the Temporal SDK (start-up time, idle memory).
  const temporalEngine = config.temporal && onTemporal
    ? await (await import('../adapters/temporal/index.js')).TemporalEngine.connect({
        address: config.temporal.address,
        namespace: config.temporal.namespace,
        ...(config.temporal.apiKey ? { apiKey: config.temporal.apiKey } : {}),
        ...(config.temporal.tls !== undefined ? { tls: config.temporal.tls } : {}),
        maxMessageBytes: config.maxResultBytes,
        // The embedded engine has no per-payload limit; on Temporal, large payloads go to S3 or are refused by name.
        ...(remoteTraceStore
          ? { claimChecks: (await import('./claimChecks.js')).claimCheckCodec(remoteTraceStore, config) }
          : { maxPayloadBytes: config.payloads.temporalMaxPayloadBytes }),
        ...(config.pageTokenSecret ? { pageTokenSecret: config.pageTokenSecret } : {}),
        logger,
        clock: systemClock,
      })
    : undefined;
  // Every waiting POST /workflow/run listens to it: thousands at once are expected, not a leak.
  const runWaitsEnd = new AbortController();
  setMaxListeners(0, runWaitsEnd.signal);
  const container = buildContainer(config, {
    logger,
    shutdownSignal: runWaitsEnd.signal,
    ...(temporalEngine ? { engine: temporalEngine } : {}),
    ...(remoteTraceStore ? { remoteTraceStore } : {}),
  });
  const api = resolveToken(container, FLOWGATE_API);
  const engine: WorkflowEngine = resolveToken(container, WORKFLOW_ENGINE);
  const memoryEngine: MemoryEngine | undefined = temporalEngine ? undefined : resolveToken(container, MEMORY_ENGINE);

  const workers = memoryEngine
    ? (options.workers ?? [
        await loadEmbeddedWorker({
          catalog: config.defaultCatalog,
          workflowsDir: config.workflowsDir ?? EXAMPLE_WORKFLOWS_DIR,
          projectDir: config.projectDir,
          logger,
        }),
      ])
    : [];
  const running = new Map<string, { stop(): void }>();
  const startWorker = (catalog: string): void => {
    if (!memoryEngine) throw new Error('on Temporal, workers run in their own processes (npm run worker)');
    const spec = workers.find((worker) => worker.catalog === catalog);
    if (!spec) throw new Error(`no worker is configured for catalog "${catalog}"`);
    if (!running.has(catalog)) running.set(catalog, memoryEngine.registerWorker(spec));
  };
  const stopWorker = (catalog: string): void => {
    running.get(catalog)?.stop();
    running.delete(catalog);
  };
  for (const worker of workers) startWorker(worker.catalog);

  if (!config.authToken) {
    logger.warn('API_AUTH_TOKEN is not set: every request is accepted without authentication (local development only)');
  }
  const http = await startHttpServer({
    api,
    logger,
    ids: resolveToken(container, ID_GENERATOR),
    authToken: config.authToken,
    maxBodyBytes: config.maxBodyBytes,
    runTimeoutMaxSeconds: config.runTimeoutMaxSeconds,
    deprecatedEndpoints: config.deprecatedEndpoints,
    ui: config.ui,
    ...config.limits,
    host: config.host,
    port: config.port,
  });
  logger.info('flowgate listening', {
    url: http.url,
    engine: engine.kind,
    catalogs: workers.map((worker) => ({ catalog: worker.catalog, workflows: worker.workflows.map((w) => w.name) })),
  });

  let closing: Promise<void> | undefined;
  return {
    url: http.url,
    config: resolveToken(container, CONFIG),
    api,
    engine,
    stopWorker,
    startWorker,
    close: () =>
      (closing ??= (async () => {
        const shutdownStarted = Date.now();
        // In-flight requests get the grace period; run-and-wait calls whose runs are still open by the cut-off are
        // answered then, instead of losing their answer to the force-close at the end of it.
        const cutOff = setTimeout(() => runWaitsEnd.abort(), runWaitCutOffMs(config.shutdownGraceMs));
        try {
          await http.close(config.shutdownGraceMs);
        } finally {
          clearTimeout(cutOff);
          runWaitsEnd.abort();
        }
        for (const catalog of [...running.keys()]) stopWorker(catalog);
        await Promise.all(workers.map((worker) => worker.observer?.close()));
        resolveToken(container, CALLBACK_DELIVERIES).close();
        memoryEngine?.close();
        await temporalEngine?.close();
        await resolveToken(container, OUTBOUND_SENDER).close();
        // Trace uploads the embedded engine's runs left running get what is left of the grace period.
        await resolveToken(container, TRACE_UPLOADS).settle(Math.max(0, config.shutdownGraceMs - (Date.now() - shutdownStarted)));
      })()),
  };
}
