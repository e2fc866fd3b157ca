import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { remoteTraceConfig, remoteTraceEnv, type RemoteTraceConfig } from './remoteTraceConfig.js';
import { ConfigError, type EnvInput } from './config.js';
import { payloadLimits, payloadLimitsEnv, type PayloadLimits } from './payloadLimits.js';
import { outboundEnv, outboundPolicy } from './outboundConfig.js';
import type { OutboundAllowlist } from '../core/domain/outboundAddress.js';
import { envBoolean } from './envBoolean.js';

/** The example workflows a worker serves when WORKFLOWS_DIR is not set (the built ones when running from dist). */
export const EXAMPLE_WORKFLOWS_DIR = fileURLToPath(new URL('../examples/workflows/', import.meta.url));

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));
const catalogName = z.string().min(1).max(200);

/** Every environment variable `npm run worker` reads, with its default. */
export const workerEnvSchema = z.object({
  TEMPORAL_ADDRESS: z.string({ error: 'is required (host:port of the Temporal frontend)' }).min(1, 'is required (host:port of the Temporal frontend)'),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: optionalText,
  TEMPORAL_TLS: envBoolean.optional(),
  WORKER_CATALOG: catalogName.optional(),
  DEFAULT_CATALOG: catalogName.default('main'),
  WORKFLOWS_DIR: z.string().min(1).optional(),
  PROJECT_DIR: z.string().min(1).optional(),
  TRACE_DIR: z.string().min(1).default('./traces'),
  ...remoteTraceEnv,
  WEBHOOK_SIGNING_SECRET: optionalText,
  ...outboundEnv,
  MAX_RESULT_BYTES: z.coerce.number().int().positive().default(33_554_432),
  ...payloadLimitsEnv,
  LOG_LEVEL: z.enum(['info', 'warn', 'error', 'silent']).default('info'),
});

export interface WorkerConfig {
  temporal: { address: string; namespace: string; apiKey: string | undefined; tls: boolean | undefined };
  /** WORKER_CATALOG, else DEFAULT_CATALOG, else `main`. */
  catalog: string;
  workflowsDir: string;
  /** PROJECT_DIR: exposed packages in its node_modules join the catalog. @default the current directory */
  projectDir: string;
  traceDir: string;
  remoteTraces: RemoteTraceConfig | undefined;
  webhookSigningSecret: string | undefined;
  /** OUTBOUND_ALLOWLIST: hosts and networks webhook calls and run callbacks may reach although the address rules refuse them. */
  outboundAllowlist: OutboundAllowlist;
  maxResultBytes: number;
  /** Large payloads (docs/large-payloads.md): the claim-check threshold and Temporal's per-payload limit without it. */
  payloads: PayloadLimits;
  logLevel: 'info' | 'warn' | 'error' | 'silent';
}

/** Parses the worker's environment; throws ConfigError with one line per bad variable. */
export function parseWorkerConfig(env: EnvInput): WorkerConfig {
  const parsed = workerEnvSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`));
  }
  const value = parsed.data;
  return {
    temporal: { address: value.TEMPORAL_ADDRESS, namespace: value.TEMPORAL_NAMESPACE, apiKey: value.TEMPORAL_API_KEY, tls: value.TEMPORAL_TLS },
    catalog: value.WORKER_CATALOG ?? value.DEFAULT_CATALOG,
    workflowsDir: value.WORKFLOWS_DIR ?? EXAMPLE_WORKFLOWS_DIR,
    projectDir: value.PROJECT_DIR ?? process.cwd(),
    traceDir: value.TRACE_DIR,
    remoteTraces: remoteTraceConfig(value),
    webhookSigningSecret: value.WEBHOOK_SIGNING_SECRET,
    outboundAllowlist: outboundPolicy(value),
    maxResultBytes: value.MAX_RESULT_BYTES,
    payloads: payloadLimits(value),
    logLevel: value.LOG_LEVEL,
  };
}
