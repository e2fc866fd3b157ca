import { Runtime } from '@temporalio/worker';
import { S3TraceStore } from '../adapters/s3/index.js';
import { JsonLogger } from '../adapters/log/index.js';
import { temporalLoggerFor } from '../adapters/temporal/worker/index.js';
import { ConfigError } from './config.js';
import { createWorker } from './worker.js';
import { claimCheckCodec } from './claimChecks.js';
import { parseWorkerConfig } from './workerConfig.js';

/**
 * `npm run worker`: one flowgate worker serving WORKER_CATALOG on Temporal. SIGTERM/SIGINT stop it gracefully: the
 * catalog is told first (while the worker still polls, so the goodbye is applied), then the worker drains.
 */
async function main(): Promise<void> {
  let config;
  try {
    config = parseWorkerConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`flowgate worker: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const logger = new JsonLogger({ level: config.logLevel });
  // Our own signal handling: the SDK's default would stop the worker before the catalog hears about it.
  Runtime.install({ logger: temporalLoggerFor(logger, 'WARN'), shutdownSignals: [] });
  const remoteTraceStore = config.remoteTraces ? new S3TraceStore({ ...config.remoteTraces, logger }) : undefined;
  const worker = await createWorker({
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
    traceDir: config.traceDir,
    ...(remoteTraceStore ? { remoteTraceStore, claimChecks: claimCheckCodec(remoteTraceStore, config) } : {}),
    maxResultBytes: config.maxResultBytes,
    maxPayloadBytes: config.payloads.temporalMaxPayloadBytes,
    logger,
    ...(config.webhookSigningSecret ? { webhookSigningSecret: config.webhookSigningSecret } : {}),
    outboundAllowlist: config.outboundAllowlist,
  });
  const shutdown = (signal: string): void => {
    logger.info('flowgate worker: shutting down', { signal });
    worker.shutdown().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  logger.info('flowgate worker starting', { catalog: config.catalog, identity: worker.identity, workflowsDir: config.workflowsDir, projectDir: config.projectDir });
  await worker.run();
}

main().catch((error: unknown) => {
  process.stderr.write(`flowgate worker: failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
