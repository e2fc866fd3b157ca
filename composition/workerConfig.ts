import { parseEnv, toConfig, workerEnvSchema, type EnvInput, type FlowgateConfig } from './config.js';

/** A worker's configuration: the API server's, with its Temporal connection and catalog settled. */
export interface WorkerConfig extends FlowgateConfig {
  temporal: NonNullable<FlowgateConfig['temporal']>;
  /** WORKER_CATALOG, else DEFAULT_CATALOG, else `main`. */
  catalog: string;
}

/** Parses a worker's environment (config.ts's variables and defaults); throws ConfigError with one line per bad variable. */
export function parseWorkerConfig(env: EnvInput): WorkerConfig {
  const config = toConfig(parseEnv(workerEnvSchema, env));
  return { ...config, temporal: config.temporal!, catalog: config.workerCatalog };
}
