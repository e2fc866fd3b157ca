import { token } from '../ports/token.js';
import type { FlowgateConfig } from './config.js';
import type { FlowgateApi } from '../core/api/flowgateApi.js';
import type { CallbackDeliveries, MemoryEngine } from '../adapters/memory/index.js';
import type { TraceUploads } from '../core/trace/traceUploads.js';
import type { FetchWebhookSender } from '../adapters/webhook/index.js';

/** Tokens that exist only in the composition root (the ports' own tokens live in ports/). */
export const CONFIG = token<FlowgateConfig>('Config');
export const FLOWGATE_API = token<FlowgateApi>('FlowgateApi');
/** The concrete memory engine, for registering workers (the port token hides it behind WorkflowEngine). */
export const MEMORY_ENGINE = token<MemoryEngine>('MemoryEngine');
/** Remote trace uploads still running after their run closed (embedded engine), for the shutdown to wait on. */
export const TRACE_UPLOADS = token<TraceUploads>('TraceUploads');
/** The embedded engine's run callbacks, delivered from this process (Temporal's are delivered by its workers). */
export const CALLBACK_DELIVERIES = token<CallbackDeliveries>('CallbackDeliveries');
/** The one HTTP sender behind WEBHOOK_SENDER and CALLBACK_SENDER, for the shutdown to close its connections. */
export const OUTBOUND_SENDER = token<FetchWebhookSender>('OutboundSender');
