/** flowgate on Temporal: the engine adapter the API server uses (the worker runtime lives in ./worker). */
export { TemporalEngine, type TemporalEngineConnectOptions } from './engine/engine.js';
export type { TemporalEngineOptions } from './engine/options.js';
export { DEFAULT_CATALOG_CACHE_MS, DEFAULT_RPC_TIMEOUT_MS, DEFAULT_WORKER_LIVENESS_MS } from './engine/options.js';
export { connectTemporal, temporalConnectionOptions, type TemporalConnectionOptions } from './connection.js';
