/** A Temporal dev server as a child process: `flowgate dev` runs one, and so do this repository's tests (scripts/infra). */
export { startTemporalDevServer, type StartTemporalDevServerOptions, type TemporalDevServer, type Log } from './devServer.js';
export { DEV_SERVER_DYNAMIC_CONFIG, FLOWGATE_SEARCH_ATTRIBUTES, devServerArgs, type DevServerPorts } from './devServerArgs.js';
export { locateTemporalCli, temporalCliCacheDir, isExecutableFile, TemporalCliNotFoundError } from './cliLocation.js';
export { findFreePorts, LOOPBACK } from './freePorts.js';
export { launch, terminate, killNow, killedWithParent, type RunningProcess } from './childProcess.js';
export { waitForTemporal } from './waitForTemporal.js';
