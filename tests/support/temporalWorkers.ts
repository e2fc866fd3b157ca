import { createWorker, type FlowgateWorker } from '../../composition/worker.js';
import { bundleCatalog, type CatalogBundle } from '../../adapters/temporal/worker/bundle.js';
import { TemporalEngine } from '../../adapters/temporal/index.js';
import { systemClock } from '../../adapters/system/index.js';
import type { Logger } from '../../ports/logger.js';
import { FIXTURE_CATALOGS, type TestCatalog } from './fixtureCatalogs.js';
import { S3TraceStore } from '../../adapters/s3/index.js';
import { remoteTraceConfig, remoteTraceEnv } from '../../composition/remoteTraceConfig.js';
import { z } from 'zod';

const MAX_RESULT_BYTES = 33_554_432;
/** The API caches catalog descriptions this long (TemporalEngine catalogCacheMs default). */
const CATALOG_CACHE_MS = 1000;

// Bundling takes seconds; every suite file in this process reuses the same bundles of the fixture catalogs.
const bundles = new Map<TestCatalog, Promise<CatalogBundle>>();

function bundleFor(spec: TestCatalog, logger: Logger): Promise<CatalogBundle> {
  const fixture = FIXTURE_CATALOGS.includes(spec);
  let bundle = fixture ? bundles.get(spec) : undefined;
  if (!bundle) {
    bundle = bundleCatalog({
      workflowModules: spec.modules,
      ...(spec.projectDir ? { projectDir: spec.projectDir } : {}),
      maxResultBytes: MAX_RESULT_BYTES,
      workflowDetailsHeader: (spec.hookFiles?.length ?? 0) > 0,
      logger,
    });
    if (fixture) bundles.set(spec, bundle);
  }
  return bundle;
}

/** Real workers for the fixture catalogs, each on its task queue, with a handle to stop and restart one. */
export async function startTemporalWorkers(options: { traceDir: string; logger: Logger; env: Record<string, string>; catalogs: TestCatalog[] }) {
  const address = process.env.TEMPORAL_ADDRESS!;
  const namespace = process.env.TEMPORAL_NAMESPACE ?? 'default';
  const probe = await TemporalEngine.connect({ address, namespace, maxMessageBytes: MAX_RESULT_BYTES, logger: options.logger, clock: systemClock });
  const running = new Map<string, { worker: FlowgateWorker; done: Promise<void> }>();
  // Workers write remote traces when the suite configured S3, exactly as the API server reads them.
  const remote = remoteTraceConfig(z.object(remoteTraceEnv).parse(options.env));
  const remoteTraceStore = remote ? new S3TraceStore({ ...remote, logger: options.logger }) : undefined;

  const waitForAvailability = async (catalog: string, available: boolean): Promise<void> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const description = await probe.describeCatalog(catalog);
      if ((description?.available ?? false) === available) break;
      if (Date.now() > deadline) throw new Error(`catalog ${catalog} did not become ${available ? 'available' : 'unavailable'}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    // The API server's own cache may still hold the previous answer.
    await new Promise((resolve) => setTimeout(resolve, CATALOG_CACHE_MS + 100));
  };

  const start = async (catalog: string): Promise<void> => {
    if (running.has(catalog)) return;
    const spec = options.catalogs.find((candidate) => candidate.catalog === catalog);
    if (!spec) throw new Error(`no test catalog "${catalog}"`);
    const bundle = await bundleFor(spec, options.logger);
    const worker = await createWorker({
      temporal: { address, maxMessageBytes: MAX_RESULT_BYTES },
      namespace,
      catalog,
      workflowModules: spec.modules,
      traceDir: options.traceDir,
      maxResultBytes: MAX_RESULT_BYTES,
      logger: options.logger,
      bundle,
      ...(spec.hookFiles ? { hookFiles: spec.hookFiles } : {}),
      ...(spec.hookTimeoutMs ? { hookTimeoutMs: spec.hookTimeoutMs } : {}),
      ...(remoteTraceStore ? { remoteTraceStore } : {}),
      ...(options.env.WEBHOOK_SIGNING_SECRET ? { webhookSigningSecret: options.env.WEBHOOK_SIGNING_SECRET } : {}),
    });
    running.set(catalog, { worker, done: worker.run() });
    await waitForAvailability(catalog, true);
  };

  const stop = async (catalog: string): Promise<void> => {
    const entry = running.get(catalog);
    if (!entry) return;
    running.delete(catalog);
    await entry.worker.shutdown();
    await entry.done;
    await waitForAvailability(catalog, false);
  };

  try {
    for (const { catalog } of options.catalogs) await start(catalog);
  } catch (error) {
    await Promise.all([...running.values()].map(async ({ worker, done }) => { await worker.shutdown(); await done; }));
    await probe.close();
    remoteTraceStore?.close();
    throw error;
  }
  return {
    start,
    stop,
    close: async () => {
      await Promise.all([...running.keys()].map(async (catalog) => {
        const entry = running.get(catalog)!;
        running.delete(catalog);
        await entry.worker.shutdown();
        await entry.done;
      }));
      await probe.close();
      remoteTraceStore?.close();
    },
  };
}
