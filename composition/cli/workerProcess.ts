import { Runtime } from '@temporalio/worker';
import { temporalLoggerFor } from '../../adapters/temporal/worker/index.js';
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
  // Our own signal handling: the SDK's default would stop the worker before the catalog hears about it.
  // METRICS_PORT: Temporal's own worker metrics (task slots, poll and schedule latencies, sticky cache, activity and
  // workflow task outcomes) in Prometheus' text format at /metrics (docs/operations.md).
  const metricsPort = config.metrics.enabled ? config.metrics.port : undefined;
  Runtime.install({
    logger: temporalLoggerFor(parts.logger, 'WARN'),
    shutdownSignals: [],
    ...(metricsPort === undefined ? {} : { telemetryOptions: { metrics: { prometheus: { bindAddress: bindAddress(config.host, metricsPort) } } } }),
  });
  const worker = await createWorker({
    ...parts,
    temporal: {
      address: config.temporal.address,
      ...(config.temporal.apiKey ? { apiKey: config.temporal.apiKey } : {}),
      ...(config.temporal.tls !== undefined ? { tls: config.temporal.tls } : {}),
      maxMessageBytes: config.maxResultBytes,
    },
    namespace: config.temporal.namespace,
    catalog: config.catalog,
    workflowsDir: config.workflowsDir,
    projectDir: config.projectDir,
    maxResultBytes: config.maxResultBytes,
    maxPayloadBytes: config.payloads.temporalMaxPayloadBytes,
  }).catch(async (error: unknown) => {
    await composition.close(0);
    throw error;
  });
  parts.logger.info('flowgate worker starting', { catalog: config.catalog, identity: worker.identity, workflowsDir: config.workflowsDir, projectDir: config.projectDir });
  const running = worker.run().finally(() => composition.close(0));
  return { identity: worker.identity, running, shutdown: () => worker.shutdown() };
}

/** `host:port`, an IPv6 host in brackets. */
function bindAddress(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
