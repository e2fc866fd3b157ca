import 'reflect-metadata';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import { createFlowgateApi } from '../core/createFlowgateApi.js';
import { recordTrace } from '../core/trace/recordTrace.js';
import { TraceUploads } from '../core/trace/traceUploads.js';
import { WORKFLOW_ENGINE, TRACE_STORES, CLOCK, ID_GENERATOR, DIGEST, LOGGER, WEBHOOK_SENDER, CALLBACK_SENDER, type Token } from '../ports/index.js';
import type { Logger } from '../ports/logger.js';
import type { WorkflowEngine } from '../ports/engine.js';
import { CallbackDeliveries, MemoryEngine } from '../adapters/memory/index.js';
import { systemClock, randomIds, sha256Digest } from '../adapters/system/index.js';
import { FsTraceStore } from '../adapters/fs/index.js';
import { shareTraceReads } from '../core/trace/sharedReads.js';
import { S3TraceStore } from '../adapters/s3/index.js';
import { JsonLogger } from '../adapters/log/index.js';
import { FetchWebhookSender } from '../adapters/webhook/index.js';
import { CALLBACK_DELIVERIES, CONFIG, FLOWGATE_API, MEMORY_ENGINE, OUTBOUND_SENDER, TRACE_UPLOADS } from './tokens.js';
import type { FlowgateConfig } from './config.js';

export interface ContainerOverrides {
  /** Replaces the JSON logger (tests capture lines with it). */
  logger?: Logger;
  /**
   * An engine connected beforehand (Temporal: connecting is asynchronous, factories are not). Without it the
   * embedded memory engine is built.
   */
  engine?: WorkflowEngine;
  /** Aborted near the end of the shutdown grace period: run-and-wait calls stop waiting (CoreDeps.shutdownSignal). */
  shutdownSignal?: AbortSignal;
  /** The S3 trace store made beforehand (the Temporal engine's claim checks share its client). */
  remoteTraceStore?: S3TraceStore;
}

/** Resolves a port token with the type it was declared with. */
export function resolveToken<T>(container: DependencyContainer, key: Token<T>): T {
  return container.resolve<T>(key);
}

/**
 * Wires adapters to ports with factories: no decorators anywhere, so core and adapters stay framework-free.
 * Each call makes a child container, so several servers can live in one process (tests do that).
 */
export function buildContainer(config: FlowgateConfig, overrides: ContainerOverrides = {}): DependencyContainer {
  const container = rootContainer.createChildContainer();
  const once = <T>(factory: (c: DependencyContainer) => T) => ({ useFactory: instanceCachingFactory<T>(factory) });

  container.register(CONFIG, { useValue: config });
  container.register(LOGGER, once(() => overrides.logger ?? new JsonLogger({ level: config.logLevel })));
  container.register(CLOCK, { useValue: systemClock });
  container.register(ID_GENERATOR, { useValue: randomIds });
  container.register(DIGEST, { useValue: sha256Digest });
  container.register(
    TRACE_STORES,
    // Concurrent trace-log readers of one trace share one parsed copy (docs/reliability.md, greedy readers).
    once((c) => ({
      local: shareTraceReads(new FsTraceStore({ directory: config.traceDir })),
      ...(overrides.remoteTraceStore
        ? { remote: shareTraceReads(overrides.remoteTraceStore) }
        : config.remoteTraces
          ? { remote: shareTraceReads(new S3TraceStore({ ...config.remoteTraces, logger: resolveToken(c, LOGGER) })) }
          : {}),
    })),
  );
  container.register(
    OUTBOUND_SENDER,
    once(
      () =>
        new FetchWebhookSender({
          allowlist: config.outboundAllowlist,
          ...(config.webhookSigningSecret ? { signingSecret: config.webhookSigningSecret } : {}),
        }),
    ),
  );
  // One signer serves both ports: run callbacks are signed exactly like webhook calls (decisions.md), and reach only
  // the addresses webhook calls may.
  container.register(WEBHOOK_SENDER, once((c) => resolveToken(c, OUTBOUND_SENDER)));
  container.register(CALLBACK_SENDER, once((c) => resolveToken(c, OUTBOUND_SENDER)));
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
  container.register(TRACE_UPLOADS, once((c) => new TraceUploads({ clock: resolveToken(c, CLOCK), logger: resolveToken(c, LOGGER) })));
  if (!overrides.engine) container.register(
    MEMORY_ENGINE,
    once((c) => {
      const traces = resolveToken(c, TRACE_STORES);
      const logger = resolveToken(c, LOGGER);
      const uploads = resolveToken(c, TRACE_UPLOADS);
      return new MemoryEngine({
        clock: resolveToken(c, CLOCK),
        ids: resolveToken(c, ID_GENERATOR),
        logger,
        webhookSender: resolveToken(c, WEBHOOK_SENDER),
        maxClosedRuns: config.memoryMaxClosedRuns,
        maxClosedBytes: config.memoryMaxClosedBytes,
        maxHistoryBytes: config.memoryMaxHistoryBytes,
        // Keyed starts' records outlive their runs until the answers they keep expire (docs/idempotency.md).
        idempotencyRetentionMs: config.idempotencyRetentionSeconds * 1000,
        maxIdempotencyBytes: config.memoryMaxIdempotencyBytes,
        // A run's close waits for its local trace, and for the remote upload only briefly (core/trace/traceUploads.ts).
        onRunClosed: (closed) => recordTrace(traces, logger, closed, uploads),
        onRunCallback: (run, target) => void resolveToken(c, CALLBACK_DELIVERIES).start(run, target),
      });
    }),
  );
  if (overrides.engine) container.register(WORKFLOW_ENGINE, { useValue: overrides.engine });
  else container.register(WORKFLOW_ENGINE, once((c) => resolveToken(c, MEMORY_ENGINE)));
  container.register(
    FLOWGATE_API,
    once((c) =>
      createFlowgateApi({
        engine: resolveToken(c, WORKFLOW_ENGINE),
        traces: resolveToken(c, TRACE_STORES),
        clock: resolveToken(c, CLOCK),
        ids: resolveToken(c, ID_GENERATOR),
        digest: resolveToken(c, DIGEST),
        logger: resolveToken(c, LOGGER),
        defaultCatalog: config.defaultCatalog,
        callbackRetryForMs: config.callbackRetryForMs,
        outboundAllowlist: config.outboundAllowlist,
        idempotencyRetentionMs: config.idempotencyRetentionSeconds * 1000,
        ...(overrides.shutdownSignal ? { shutdownSignal: overrides.shutdownSignal } : {}),
      }),
    ),
  );

  // Resolve every token now, so a missing or broken registration fails at boot, not on the first request.
  for (const key of [CONFIG, LOGGER, CLOCK, ID_GENERATOR, DIGEST, TRACE_STORES, TRACE_UPLOADS, OUTBOUND_SENDER, WEBHOOK_SENDER, CALLBACK_SENDER, CALLBACK_DELIVERIES, WORKFLOW_ENGINE, FLOWGATE_API]) {
    container.resolve(key);
  }
  return container;
}
