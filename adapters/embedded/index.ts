/** The embedded, in-process workflow engine (the default engine, and the Temporal adapter's test double). */
export { EmbeddedEngine } from './engine.js';
export { CallbackDeliveries } from './callbackDeliveries.js';
export type { EmbeddedEngineOptions } from './options.js';
export type { ClosedRunRecord } from '../../core/trace/recordTrace.js';
export { DEFAULT_MAX_CLOSED_RUNS, WebhookSenderMissingError } from './options.js';
export type { WorkerRegistration, WorkerHandle } from './catalogs.js';
export { StepTimeoutError } from './stepExecution.js';
export { systemClock, randomIds } from '../system/index.js';
