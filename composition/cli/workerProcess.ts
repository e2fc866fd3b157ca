import { Runtime } from '@temporalio/worker';
import { loopbackExporterAddress, sdkMetricsSource, temporalLoggerFor } from '../../adapters/temporal/worker/index.js';
import { CombinedExposition, startMetricsListener, type MetricsListener } from '../../adapters/metrics/index.js';
import { composeFlowgate } from '../container.js';
import { createWorker, workerParts } from '../worker.js';
import type { WorkerConfig } from '../workerConfig.js';

/**
 * `flowgate worker`'s process: the worker's parts from the one composition (role `worker`), then the worker. Its
 * module imports @temporalio/worker, so it is loaded only by that command.
 */
export async function startWorkerProcess(config: WorkerConfig): Promise<{ identity: string; running: Promise<void>; shutdown(): Promise<void> }> {
  const composition = await composeFlowgate(config, {}, { role: 'worker' });
  const parts = workerParts(composition);
  // METRICS_PORT serves flowgate's own worker metrics (step attempts, callbacks, the process) followed by Temporal's
  // (task slots, poll and schedule latencies, sticky cache, activity and workflow task outcomes), in one scrape
  // (docs/operations.md). The SDK's exporter listens on a loopback port that only this process reads.
  const served = config.metrics.enabled && config.metrics.port !== undefined && parts.metrics ? { port: config.metrics.port, own: parts.metrics } : undefined;
  const exporterAddress = served ? await loopbackExporterAddress() : undefined;
  // Our own signal handling: the SDK's default would stop the worker before the catalog hears about it.
  Runtime.install({
    logger: temporalLoggerFor(parts.logger, 'WARN'),
    shutdownSignals: [],
    ...(exporterAddress === undefined ? {} : { telemetryOptions: { metrics: { prometheus: { bindAddress: exporterAddress } } } }),
  });
  let metricsListener: MetricsListener | undefined;
  if (served && exporterAddress) {
    const exposition = new CombinedExposition(served.own, [sdkMetricsSource(exporterAddress)]);
    metricsListener = await startMetricsListener(exposition, config.listener.host, served.port, { compression: config.http.compression }).catch(async (error: unknown) => {
      await composition.close(0);
      throw error;
    });
  }
  const worker = await createWorker({
    ...parts,
    temporal: {
      address: config.temporal.address,
      ...(config.temporal.apiKey ? { apiKey: config.temporal.apiKey } : {}),
      ...(config.temporal.tls !== undefined ? { tls: config.temporal.tls } : {}),
      transport: config.temporal.transport,
      maxMessageBytes: config.maxResultBytes,
    },
    namespace: config.temporal.namespace,
    catalog: config.catalog,
    workflowsDir: config.workflowsDir,
    projectDir: config.projectDir,
    maxResultBytes: config.maxResultBytes,
    maxPayloadBytes: config.payloads.temporalMaxPayloadBytes,
  }).catch(async (error: unknown) => {
    await metricsListener?.close();
    await composition.close(0);
    throw error;
  });
  parts.logger.info('flowgate worker starting', {
    catalog: config.catalog,
    identity: worker.identity,
    workflowsDir: config.workflowsDir,
    projectDir: config.projectDir,
    ...(metricsListener ? { metrics: `${metricsListener.url}/metrics` } : {}),
  });
  const running = worker.run().finally(async () => {
    await metricsListener?.close();
    await composition.close(0);
  });
  return { identity: worker.identity, running, shutdown: () => worker.shutdown() };
}
