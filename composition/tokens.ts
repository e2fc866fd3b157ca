import { token } from '../ports/token.js';
import type { FlowgateConfig } from './config.js';
import type { FlowgateApi } from '../core/api/flowgateApi.js';
import type { CallbackDeliveries, EmbeddedEngine } from '../adapters/embedded/index.js';
import type { HttpApp } from '../adapters/http/index.js';
import type { TraceUploads } from '../core/trace/traceUploads.js';
import type { ClaimCheckCodec } from '../adapters/temporal/claimCheckCodec.js';
import type { OtelTracing } from '../adapters/otel/index.js';
import type { AccessKeys } from './accessKeys.js';
import type { ExposedMetrics } from '../ports/metrics.js';

/** Tokens that exist only in the composition root (the ports' own tokens live in ports/). */
export const CONFIG = token<FlowgateConfig>('Config');
export const FLOWGATE_API = token<FlowgateApi>('FlowgateApi');
/** The concrete embedded engine, for registering workers (the port token hides it behind WorkflowEngine); undefined on another engine. */
export const EMBEDDED_ENGINE = token<EmbeddedEngine | undefined>('EmbeddedEngine');
/** Remote trace uploads still running after their run closed (embedded engine), for the shutdown to wait on. */
export const TRACE_UPLOADS = token<TraceUploads>('TraceUploads');
/** The embedded engine's run callbacks, delivered from this process (Temporal's are delivered by its workers). */
export const CALLBACK_DELIVERIES = token<CallbackDeliveries>('CallbackDeliveries');
/** Aborted near the end of a shutdown's grace period: run-and-wait calls still waiting stop then (CoreDeps.shutdownSignal). */
export const RUN_WAITS_END = token<AbortController>('RunWaitsEnd');
/** The transport-neutral HTTP app both handlers and the bundled server wrap. */
export const HTTP_APP = token<HttpApp>('HttpApp');
/** Large payloads through S3 (Temporal with TRACE_S3_BUCKET): one codec for the API's client and the worker's; else undefined. */
export const CLAIM_CHECKS = token<ClaimCheckCodec | undefined>('ClaimChecks');
/**
 * The OpenTelemetry tracing this composition made (OTEL_EXPORTER_OTLP_ENDPOINT): its tracer and span processor serve
 * Temporal's interceptors. Undefined without it; the TRACING port token holds it too, or noTracing.
 */
export const OTEL_TRACING = token<OtelTracing | undefined>('OtelTracing');
/** The metrics this composition keeps and serves (GET /metrics, METRICS_PORT); undefined with METRICS=off. */
export const EXPOSED_METRICS = token<ExposedMetrics | undefined>('ExposedMetrics');
/** The API keys requests authenticate with (API_AUTH_TOKEN, API_KEYS_FILE, createFlowgate's apiKeys), and their reload. */
export const ACCESS_KEYS = token<AccessKeys>('AccessKeys');
