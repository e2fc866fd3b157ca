import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { SpanAttributes, SpanOptions, TraceSpan, Tracing } from '../../ports/tracing.js';

export interface OtelTracingOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the OTLP/HTTP base URL; spans go to `<endpoint>/v1/traces`. */
  endpoint: string;
  /** OTEL_SERVICE_NAME: the `service.name` of every span. */
  serviceName: string;
  /** Where spans go instead of OTLP/HTTP (tests of the adapter itself). */
  exporter?: SpanExporter;
}

const w3c = new W3CTraceContextPropagator();

/**
 * Tracing on OpenTelemetry: spans batched and exported over OTLP/HTTP (JSON). Its own tracer provider, not the global
 * one, so several flowgates in one process (an API and its test workers) each export with their own resource. The
 * context manager and the W3C propagator are process-wide: the Temporal interceptors read the active context and
 * inject it through the global propagation API.
 */
export class OtelTracing implements Tracing {
  readonly enabled = true;
  /** For the Temporal interceptors, which make their own spans with it. */
  readonly tracer: Tracer;
  /** For the Temporal worker's workflow span sink (spans made inside the sandbox are processed here). */
  readonly resource: Resource;
  readonly spanProcessor: SpanProcessor;
  private readonly provider: BasicTracerProvider;

  constructor(options: OtelTracingOptions) {
    installProcessGlobals();
    this.resource = new Resource({ 'service.name': options.serviceName });
    this.spanProcessor = new BatchSpanProcessor(options.exporter ?? new OTLPTraceExporter({ url: tracesUrl(options.endpoint) }));
    this.provider = new BasicTracerProvider({ resource: this.resource, spanProcessors: [this.spanProcessor] });
    this.tracer = this.provider.getTracer('flowgate');
  }

  startSpan(name: string, options: SpanOptions = {}): TraceSpan {
    const parent = options.parent === undefined ? ROOT_CONTEXT : w3c.extract(ROOT_CONTEXT, { traceparent: options.parent }, getter);
    const span = this.tracer.startSpan(
      name,
      { kind: options.kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL, ...(options.attributes ? { attributes: options.attributes } : {}) },
      parent,
    );
    return new OtelSpan(span);
  }

  activeTraceparent(): string | undefined {
    const span = trace.getSpan(context.active());
    return span && trace.isSpanContextValid(span.spanContext()) ? traceparentOf(span) : undefined;
  }

  detached<T>(fn: () => T): T {
    return context.with(ROOT_CONTEXT, fn);
  }

  async shutdown(): Promise<void> {
    await this.provider.shutdown();
  }
}

class OtelSpan implements TraceSpan {
  private readonly context: Context;
  private ended = false;

  constructor(private readonly span: Span) {
    this.context = trace.setSpan(ROOT_CONTEXT, span);
  }

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  get traceparent(): string {
    return traceparentOf(this.span);
  }

  run<T>(fn: () => T): T {
    return context.with(this.context, fn);
  }

  end(outcome: { name?: string; attributes?: SpanAttributes; error?: string } = {}): void {
    if (this.ended) return;
    this.ended = true;
    if (outcome.name !== undefined) this.span.updateName(outcome.name);
    if (outcome.attributes) this.span.setAttributes(outcome.attributes);
    if (outcome.error !== undefined) this.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.error });
    this.span.end();
  }
}

function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${(traceFlags & 0xff).toString(16).padStart(2, '0')}`;
}

const getter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};

/** The OTLP/HTTP traces path under the base URL, as the OpenTelemetry specification builds it from the endpoint. */
export function tracesUrl(endpoint: string): string {
  return `${endpoint.replace(/\/+$/, '')}/v1/traces`;
}

let globalsInstalled = false;

/** Once per process: an async-hooks context manager and the W3C propagator, for every OtelTracing in it. */
function installProcessGlobals(): void {
  if (globalsInstalled) return;
  globalsInstalled = true;
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(w3c);
}
