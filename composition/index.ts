export { startFlowgateServer, EXAMPLE_WORKFLOWS_DIR, type FlowgateServer, type FlowgateServerOptions, type WorkerSpec } from './server.js';
export { buildContainer, type ContainerOverrides } from './container.js';
export { parseConfig, envSchema, ConfigError, type FlowgateConfig, type EnvInput } from './config.js';
export { loadWorkflowsFromDirectory } from './workflowDirectory.js';
export { CONFIG, FLOWGATE_API, MEMORY_ENGINE } from './tokens.js';
