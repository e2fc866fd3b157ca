import { createWorker, workerParts, type FlowgateWorker } from '../../composition/worker.js';
import { composeFlowgate } from '../../composition/container.js';
import { bundleCatalog, type CatalogBundle } from '../../adapters/temporal/worker/bundle.js';
import { TemporalEngine } from '../../adapters/temporal/index.js';
import { systemClock } from '../../adapters/system/index.js';
import type { Logger } from '../../ports/logger.js';
import { FIXTURE_CATALOGS, IDLE_FIXTURE, IDLE_WORKFLOW, type TestCatalog } from './fixtureCatalogs.js';
import { parseWorkerConfig } from '../../composition/workerConfig.js';
import { eventually } from './eventually.js';

const MAX_RESULT_BYTES = 33_554_432;
/** The API caches catalog descriptions this long (TemporalEngine catalogCacheMs default). */
const CATALOG_CACHE_MS = 1000;

// Bundling takes seconds; every suite file in this process reuses the same bundles of the fixture catalogs (one per
// payload limit and tracing: both are baked into the bundle).
const bundles = new Map<TestCatalog, Map<string, Promise<CatalogBundle>>>();

function bundleFor(spec: TestCatalog, logger: Logger, maxPayloadBytes: number | undefined, tracing: boolean): Promise<CatalogBundle> {
  const fixture = FIXTURE_CATALOGS.includes(spec) || spec.reuseBundle === true;
  const cached = fixture ? (bundles.get(spec) ?? bundles.set(spec, new Map()).get(spec)!) : undefined;
  const key = `${String(maxPayloadBytes)}/${tracing}`;
  let bundle = cached?.get(key);
  if (!bundle) {
    bundle = bundleCatalog({
      workflowModules: spec.modules,
      ...(spec.projectDir ? { projectDir: spec.projectDir } : {}),
      maxResultBytes: MAX_RESULT_BYTES,
      ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }),
      workflowDetailsHeader: (spec.hookFiles?.length ?? 0) > 0,
      tracing,
      logger,
    });
    cached?.set(key, bundle);
  }
  return bundle;
}

/**
 * Real workers for the fixture catalogs, each on its task queue, with a handle to stop and restart one. The `idle`
 * catalog is left known but without a worker, as the contract suites expect.
 */
export async function startTemporalWorkers(options: { traceDir: string; logger: Logger; env: Record<string, string>; catalogs: TestCatalog[] }) {
  const address = process.env.TEMPORAL_ADDRESS!;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const probe = await TemporalEngine.connect({ address, namespace, maxMessageBytes: MAX_RESULT_BYTES, logger: options.logger, clock: systemClock });
  const running = new Map<string, { worker: FlowgateWorker; done: Promise<void> }>();
  // Workers write remote traces (and offload large payloads) when the suite configured S3, as `flowgate worker` does:
  // their parts come from the same composition.
  const config = parseWorkerConfig({ ...options.env, TRACE_DIR: options.traceDir, TEMPORAL_ADDRESS: address, MAX_RESULT_BYTES: String(MAX_RESULT_BYTES) });
  const composition = await composeFlowgate(config, { logger: options.logger }, { role: 'worker' });
  const parts = workerParts(composition);
  const maxPayloadBytes = parts.claimChecks ? undefined : config.payloads.temporalMaxPayloadBytes;

  /**
   * Waits until the catalog's availability is `available`. `settle`: then also outlasts the API server's catalog cache,
   * which may still hold the previous answer; not needed before the API server has started.
   */
  const waitForAvailability = async (catalog: string, available: boolean, settle: boolean): Promise<void> => {
    await eventually(
      `catalog ${catalog} to become ${available ? 'available' : 'unavailable'}`,
      async () => ((await probe.describeCatalog(catalog))?.available ?? false) === available,
      30_000,
    );
    if (settle) await new Promise((resolve) => setTimeout(resolve, CATALOG_CACHE_MS + 100));
  };

  const start = async (catalog: string, settle = true): Promise<void> => {
    if (running.has(catalog)) return;
    const spec = options.catalogs.find((candidate) => candidate.catalog === catalog);
    if (!spec) throw new Error(`no test catalog "${catalog}"`);
    const bundle = await bundleFor(spec, options.logger, maxPayloadBytes, parts.tracing !== undefined);
    const worker = await createWorker({
      temporal: { address, maxMessageBytes: MAX_RESULT_BYTES },
      namespace,
      catalog,
      workflowModules: spec.modules,
      maxResultBytes: MAX_RESULT_BYTES,
      ...parts,
      bundle,
      ...(spec.hookFiles ? { hookFiles: spec.hookFiles } : {}),
      ...(spec.hookTimeoutMs ? { hookTimeoutMs: spec.hookTimeoutMs } : {}),
      ...(maxPayloadBytes === undefined ? {} : { maxPayloadBytes }),
    });
    const done = worker.run();
    // Said at once, not only when the suite stops it: a worker that dies mid-suite must not end the process unheard
    // (an unhandled rejection) before the tests waiting on it fail. stop() and closeAll() still throw it.
    done.catch((error: unknown) => process.stderr.write(`the test worker of catalog ${catalog} failed: ${error instanceof Error ? error.stack : String(error)}\n`));
    running.set(catalog, { worker, done });
    await waitForAvailability(catalog, true, settle);
  };

  const stop = async (catalog: string, settle = true): Promise<void> => {
    const entry = running.get(catalog);
    if (!entry) return;
    running.delete(catalog);
    await entry.worker.shutdown();
    await entry.done;
    await waitForAvailability(catalog, false, settle);
  };

  /**
   * The idle catalog must be known (its workflows published) with no worker: a worker publishes it, then stops. The
   * shared server keeps it so from one suite to the next, so later suites find it ready and skip both steps.
   */
  const makeIdle = async (spec: TestCatalog): Promise<void> => {
    const known = await probe.describeCatalog(spec.catalog);
    if (spec === IDLE_FIXTURE && known && !known.available && known.workflows.some((workflow) => workflow.name === IDLE_WORKFLOW)) return;
    await start(spec.catalog, false);
    await stop(spec.catalog, false);
  };

  const closeAll = async (): Promise<void> => {
    const entries = [...running.values()];
    running.clear();
    // Every worker stopped and everything closed even when one of them failed; then its failure is thrown.
    const stopped = await Promise.allSettled(entries.map(async ({ worker, done }) => {
      await worker.shutdown();
      await done;
    }));
    await probe.close();
    await composition.close(0);
    const failure = stopped.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) throw failure.reason;
  };

  // All at once, and before the API server exists, so no wait for its catalog cache. Settled, not raced: a worker
  // still starting when another failed must be shut down too.
  const started = await Promise.allSettled(
    options.catalogs.map((spec) => (spec.catalog === IDLE_FIXTURE.catalog ? makeIdle(spec) : start(spec.catalog, false))),
  );
  const failure = started.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure) {
    await closeAll();
    throw failure.reason;
  }
  // What the workers counted (step attempts, callbacks), as `flowgate worker` serves it at METRICS_PORT.
  const metrics = parts.metrics;
  return { start, stop, close: closeAll, ...(metrics ? { scrape: () => metrics.exposition() } : {}) };
}
