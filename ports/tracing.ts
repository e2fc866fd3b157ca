import { token } from './token.js';

/** Attribute values a span carries. */
export type SpanAttributes = Record<string, string | number | boolean>;

/** One span: a unit of work in a distributed trace (docs/operations.md, Tracing). */
export interface TraceSpan {
  /** The trace this span belongs to (32 hex digits); empty when tracing is off. */
  readonly traceId: string;
  /** This span as a W3C `traceparent` value: the carrier a child started elsewhere takes; undefined when tracing is off. */
  readonly traceparent: string | undefined;
  /** Runs `fn` with this span as the active one, so what it starts (engine calls, child spans) joins its trace. */
  run<T>(fn: () => T): T;
  /** Ends the span (later calls are ignored). `name` renames it first (a request's route is known only once routed). */
  end(outcome?: { name?: string; attributes?: SpanAttributes; error?: string }): void;
}

export interface SpanOptions {
  /**
   * The parent as a W3C `traceparent` value (an incoming request's header, a run's carrier). Absent or invalid: the
   * span starts a new trace.
   */
  parent?: string | undefined;
  /** `server` for the span of an incoming request. @default internal */
  kind?: 'server' | 'internal';
  attributes?: SpanAttributes;
}

/**
 * Distributed tracing as the HTTP adapter and the engines need it; adapters/otel implements it on OpenTelemetry. The
 * default, {@link noTracing}, does nothing and costs nothing: no span object is made.
 */
export interface Tracing {
  readonly enabled: boolean;
  startSpan(name: string, options?: SpanOptions): TraceSpan;
  /** The active span as a `traceparent` value: what an engine keeps with a run it starts. Undefined when none. */
  activeTraceparent(): string | undefined;
  /**
   * Runs `fn` with no active span, so what it sets going later begins traces of its own: a schedule's timers, which a
   * request may arm, must not make every fire for the schedule's life a child of that long-ended request.
   */
  detached<T>(fn: () => T): T;
  /** Sends what is still buffered and stops. */
  shutdown(): Promise<void>;
}

const noSpan: TraceSpan = {
  traceId: '',
  traceparent: undefined,
  run: (fn) => fn(),
  end: () => {},
};

/** Tracing off (OTEL_EXPORTER_OTLP_ENDPOINT unset). */
export const noTracing: Tracing = {
  enabled: false,
  startSpan: () => noSpan,
  activeTraceparent: () => undefined,
  detached: (fn) => fn(),
  shutdown: async () => {},
};

export const TRACING = token<Tracing>('Tracing');
