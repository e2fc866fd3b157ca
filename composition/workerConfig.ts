import type { z } from 'zod';
import { parseEnv, workerEnvSchema, type EnvInput } from './config.js';

/**
 * A worker's configuration: the API server's, with its Temporal connection and its catalog (WORKER_CATALOG, else
 * DEFAULT_CATALOG, else `main`) settled. What workerEnvSchema builds.
 */
export type WorkerConfig = z.output<typeof workerEnvSchema>;

/** Parses a worker's environment (config.ts's variables and defaults); throws ConfigError with one line per bad variable. */
export function parseWorkerConfig(env: EnvInput): WorkerConfig {
  return parseEnv(workerEnvSchema, env);
}
