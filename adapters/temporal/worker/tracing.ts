import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ActivityInterceptorsFactory, InjectedSinks } from '@temporalio/worker';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
} from '@temporalio/interceptors-opentelemetry/lib/worker/index.js';
import type { OpenTelemetryWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions.js';

/** What a worker traces with: the OpenTelemetry adapter's tracer, resource and span processor (adapters/otel). */
export interface WorkerTracer {
  readonly tracer: Tracer;
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
}

/**
 * A traced worker's activity interceptor (a span per attempt, child of the span its workflow scheduled it in) and the
 * sink through which the sandbox hands over its workflow spans (the bundle's interceptor modules make them:
 * bundle.ts, `tracing`). Loaded only with tracing on.
 */
export function workerTracing(otel: WorkerTracer): {
  activityInterceptor: ActivityInterceptorsFactory;
  sinks: InjectedSinks<{ exporter: OpenTelemetryWorkflowExporter }>;
} {
  return {
    activityInterceptor: (ctx) => ({
      inbound: new OpenTelemetryActivityInboundInterceptor(ctx, { tracer: otel.tracer }),
      outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
    }),
    sinks: { exporter: makeWorkflowExporter(otel.spanProcessor, otel.resource) },
  };
}
