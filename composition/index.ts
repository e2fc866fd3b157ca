export { createFlowgate, type CreateFlowgateOptions, type Flowgate, type StepReplacement } from './embed/createFlowgate.js';
export { startFlowgateServer, type FlowgateServer, type FlowgateServerOptions, type WorkerSpec } from './server.js';
export { composeFlowgate, type Composition, type ComposeOptions, type FlowgateParts } from './container.js';
export { parseConfig, envSchema, workerEnvSchema, ConfigError, type FlowgateConfig, type EnvInput } from './config.js';
export { parseWorkerConfig, type WorkerConfig } from './workerConfig.js';
export { loadEmbeddedWorker, type EmbeddedWorkerOptions } from './workers/workerSpecs.js';
export { MissingPackageError } from './optionalPackages.js';
export { CONFIG, FLOWGATE_API, EMBEDDED_ENGINE, HTTP_APP, TRACE_UPLOADS, CALLBACK_DELIVERIES, RUN_WAITS_END, CLAIM_CHECKS } from './tokens.js';
