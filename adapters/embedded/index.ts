/** The embedded, in-process workflow engine (the default engine, and the Temporal adapter's test double). */
export { EmbeddedEngine } from './engine.js';
export { CallbackDeliveries } from './callbackDeliveries.js';
export type { EmbeddedEngineOptions } from './options.js';
export type { ClosedRunRecord } from '../../core/trace/recordTrace.js';
export { DEFAULT_MAX_CLOSED_RUNS, WebhookSenderMissingError } from './options.js';
export type { WorkerRegistration, WorkerHandle } from './catalogs.js';
export { ProcessStoppedError, StepTimeoutError } from './stepExecution.js';
export { systemClock, randomIds } from '../system/index.js';
/** Where the engine keeps its runs: in memory (the default of EmbeddedEngine), or durable in SQLite. */
export type { EngineStore } from './store/engineStore.js';
export { StoreWriteError } from './store/engineStore.js';
export { MemoryStore, type MemoryStoreOptions } from './store/memoryStore.js';
export { openSqliteStore, type OpenSqliteStoreOptions } from './store/sqlite/openSqliteStore.js';
export { DataDirectoryError, DataDirectoryInUseError } from './store/sqlite/dataDirErrors.js';
