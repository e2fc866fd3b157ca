import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFlowgateServer, type FlowgateServer } from '../../composition/server.js';
import { loadEmbeddedWorker } from '../../composition/workers/workerSpecs.js';
import { FIXTURE_CATALOGS, IDLE_FIXTURE, type TestCatalog } from './fixtureCatalogs.js';
import { CapturingLogger, type LogLine } from './logLines.js';

export type { LogLine } from './logLines.js';

/** `embedded`: the embedded engine on its durable store (the default); `memory`: the same engine in memory only. */
export type EngineName = 'embedded' | 'memory' | 'temporal';

/** Whether the engine is the embedded one, durable or in memory (one process holds its runs). */
export function isEmbedded(engine: EngineName): boolean {
  return engine !== 'temporal';
}

/** The engine the contract suites run against in this process (scripts/suites.mjs runs them once per engine). */
export function engineUnderTest(): EngineName {
  const name = process.env.FLOWGATE_TEST_ENGINE ?? 'embedded';
  if (name !== 'embedded' && name !== 'memory' && name !== 'temporal') throw new Error(`FLOWGATE_TEST_ENGINE=${name} is not an engine flowgate has`);
  if (name === 'temporal' && !process.env.TEMPORAL_ADDRESS) {
    // Under CI and elsewhere alike: a missing server is a failure, never a skip.
    throw new Error('FLOWGATE_TEST_ENGINE=temporal needs TEMPORAL_ADDRESS (npm test starts a dev server for it)');
  }
  return name;
}

/**
 * The engine a test of restarts runs on: the engine under test, except that the in-memory one (`npm run
 * test:contract`), which keeps no run across a restart by design, gives way to the embedded engine on its durable store.
 */
export function restartableEngineUnderTest(): EngineName {
  const engine = engineUnderTest();
  return engine === 'memory' ? 'embedded' : engine;
}

export interface TestApi {
  engine: EngineName;
  baseUrl: string;
  /** METRICS_PORT's listener, when the API was started with one. */
  metricsUrl: string | undefined;
  /**
   * On Temporal, the workers' own metrics (step attempts, callback attempts), as `flowgate worker` serves them; on the
   * embedded engine they are the API process's (its /metrics), and this is undefined. Absent with METRICS=off.
   */
  scrapeWorkers: (() => Promise<string>) | undefined;
  traceDir: string;
  /** The durable embedded engine's data directory (a fresh temporary one unless `env` names DATA_DIR). */
  dataDir: string | undefined;
  /** Every line the server logged, for assertions (access log, the token never appearing). */
  logs: LogLine[];
  /** Stops the worker of a catalog and waits until the API sees it gone (503), or starts it again. */
  stopWorker(catalog: string): Promise<void>;
  startWorker(catalog: string): Promise<void>;
  /**
   * Stops the API and its workers gracefully and starts them again on the same configuration (the embedded engine on
   * the same data directory, Temporal on the same server); `baseUrl` then names the new listener.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

interface WorkerControl {
  stop(catalog: string): Promise<void>;
  start(catalog: string): Promise<void>;
  close(): Promise<void>;
  scrape?: () => Promise<string>;
}

function embeddedWorkers(server: FlowgateServer): WorkerControl {
  return {
    stop: async (catalog) => server.stopWorker(catalog),
    start: async (catalog) => server.startWorker(catalog),
    close: async () => {},
  };
}

/**
 * Starts the API on a free loopback port with the fixture catalogs `main`, `other` and `idle` (the idle catalog's
 * worker is stopped, so it is known but unavailable). `env` adds or overrides variables.
 */
export async function startTestApi(
  env: Record<string, string> = {},
  /** `engine`: this engine whatever FLOWGATE_TEST_ENGINE says (tests of one engine's own limits). */
  options: { catalogs?: TestCatalog[]; engine?: EngineName } = {},
): Promise<TestApi> {
  const catalogs = options.catalogs ?? FIXTURE_CATALOGS;
  const engine = options.engine ?? engineUnderTest();
  const traceDir = await mkdtemp(join(tmpdir(), 'flowgate-traces-'));
  // Its own data directory, removed with it (a test of restarts names its own in `env`).
  const ownDataDir = engine === 'embedded' && env.DATA_DIR === undefined ? await mkdtemp(join(tmpdir(), 'flowgate-data-')) : undefined;
  const dataDir = engine === 'embedded' ? (env.DATA_DIR ?? ownDataDir) : undefined;
  const logs: LogLine[] = [];
  const logger = new CapturingLogger(logs);
  const baseEnv = {
    HOST: '127.0.0.1',
    PORT: '0',
    TRACE_DIR: traceDir,
    DEFAULT_CATALOG: 'main',
    SHUTDOWN_GRACE_MS: '2000',
    // The suites' shared Temporal server is built for large payloads (blobs up to 64 MiB, scripts/infra/README.md);
    // tests/s3/claimCheck.test.ts sets Temporal's stock limit on a stock server.
    TEMPORAL_MAX_PAYLOAD_BYTES: String(64 * 1024 * 1024),
    // Nothing a test API sends (webhook calls, run callbacks) may leave loopback, whatever URL a test or the fuzzer
    // gives: only what a suite's OUTBOUND_ALLOWLIST names is called, and other host names are never even resolved.
    OUTBOUND_ALLOW_PUBLIC: 'off',
  };
  /** The API and its workers on `env`: started by startTestApi, and again by `restart`. */
  const launch = async (): Promise<{ server: FlowgateServer; workers: WorkerControl }> => {
    let workers: WorkerControl | undefined;
    let server: FlowgateServer | undefined;
    try {
      if (engine === 'temporal') {
        // Loaded only here, so the embedded engine's suites never load the Temporal SDK.
        const { startTemporalWorkers } = await import('./temporalWorkers.js');
        workers = await startTemporalWorkers({ traceDir, logger, env: { ...baseEnv, ...env }, catalogs });
        server = await startFlowgateServer({
          env: { ...baseEnv, ENGINE: 'temporal', TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS!, ...env },
          logger,
        });
      } else {
        const engineEnv = engine === 'memory' ? { ENGINE: 'memory' } : { ENGINE: 'embedded', DATA_DIR: dataDir! };
        const specs = await Promise.all(
          catalogs.map(({ catalog, modules, projectDir, hookFiles, hookTimeoutMs }) =>
            loadEmbeddedWorker({ catalog, workflowModules: modules, ...(projectDir ? { projectDir } : {}), ...(hookFiles ? { hookFiles } : {}), ...(hookTimeoutMs ? { hookTimeoutMs } : {}), logger }),
          ),
        );
        server = await startFlowgateServer({ env: { ...baseEnv, ...engineEnv, ...env }, workers: specs, logger });
        workers = embeddedWorkers(server);
        // On Temporal, startTemporalWorkers has left it so already.
        if (catalogs.some(({ catalog }) => catalog === IDLE_FIXTURE.catalog)) await workers.stop(IDLE_FIXTURE.catalog);
      }
      return { server, workers };
    } catch (error) {
      await server?.close();
      await workers?.close();
      throw error;
    }
  };
  const removeDirectories = async (): Promise<void> => {
    await rm(traceDir, { recursive: true, force: true });
    if (ownDataDir) await rm(ownDataDir, { recursive: true, force: true });
  };
  let running: { server: FlowgateServer; workers: WorkerControl };
  try {
    running = await launch();
  } catch (error) {
    await removeDirectories();
    throw error;
  }
  const api: TestApi = {
    engine,
    baseUrl: running.server.url,
    metricsUrl: running.server.metricsUrl,
    scrapeWorkers: running.workers.scrape,
    traceDir,
    dataDir,
    logs,
    stopWorker: (catalog) => running.workers.stop(catalog),
    startWorker: (catalog) => running.workers.start(catalog),
    restart: async () => {
      await running.server.close();
      await running.workers.close();
      running = await launch();
      api.baseUrl = running.server.url;
      api.metricsUrl = running.server.metricsUrl;
      api.scrapeWorkers = running.workers.scrape;
    },
    close: async () => {
      await running.server.close();
      await running.workers.close();
      await removeDirectories();
    },
  };
  return api;
}
