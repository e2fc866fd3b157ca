// The Temporal side of flowgate's test infrastructure. Types for TypeScript callers: index.d.mts.
export { ensureTemporalCli, temporalCliCacheDir, TEMPORAL_CLI_VERSION } from './temporalCli.mjs';
export { startTemporalDevServer } from './temporalServer.mjs';
export { DEV_SERVER_DYNAMIC_CONFIG, FLOWGATE_SEARCH_ATTRIBUTES } from './temporalServerArgs.mjs';
export { findFreePorts } from './freePorts.mjs';
