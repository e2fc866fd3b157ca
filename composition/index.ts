export { startFlowgateServer, EXAMPLE_WORKFLOWS_DIR, type FlowgateServer, type FlowgateServerOptions, type WorkerSpec } from './server.js';
export { buildContainer, type ContainerOverrides } from './container.js';
export { parseConfig, envSchema, ConfigError, type FlowgateConfig, type EnvInput } from './config.js';
export { loadEmbeddedWorker, type EmbeddedWorkerOptions } from './embeddedWorker.js';
export { CONFIG, FLOWGATE_API, MEMORY_ENGINE } from './tokens.js';
