import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_CALLBACK_RETRY_FOR_MS } from '../core/domain/callback.js';
import { HISTORY_PAGE_MAX_BYTES } from '../core/domain/history.js';
import { remoteTraceConfig, remoteTraceEnv, type RemoteTraceConfig } from './remoteTraceConfig.js';
import { payloadLimits, payloadLimitsEnv, type PayloadLimits } from './payloadLimits.js';
import { outboundEnv, outboundPolicy } from './outboundConfig.js';
import type { OutboundAllowlist } from '../core/domain/outboundAddress.js';
import { envBoolean } from './envBoolean.js';
import { corsOriginProblems } from '../adapters/http/cors.js';
import { webhookSecretProblem } from '../adapters/webhook/standardWebhooks.js';

const positiveInt = z.coerce.number().int().positive();
const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value === '' ? undefined : value));
/**
 * Unset: no authentication (with a warning at start). Set but empty or blank is a mistake (a variable emptied by a
 * template or a missing secret), never a way to turn authentication off. The token itself is never echoed.
 */
const authToken = z
  .string()
  .refine((value) => value.trim() !== '', 'is empty; set a token, or leave the variable unset to run without authentication (local development only)')
  .refine((value) => value.trim() === '' || !/\s/.test(value), 'must not contain whitespace (a bearer token is one word)')
  .optional();

const catalogName = z.string().min(1).max(200);

/** CORS_ORIGINS: origins separated by commas (spaces around them ignored), or `*`; unset or empty is off. */
const corsOrigins = z
  .string()
  .optional()
  .transform((value) => (value ?? '').split(',').map((origin) => origin.trim()).filter((origin) => origin !== ''))
  .superRefine((origins, context) => {
    for (const message of corsOriginProblems(origins)) context.addIssue({ code: 'custom', message });
  });

/**
 * WEBHOOK_SIGNING_SECRET: a Standard Webhooks `whsec_` secret, or two separated by a space while one replaces the
 * other (each call then carries both signatures). Unset: calls are not signed. Set but empty is a mistake (a variable
 * emptied by a template), never a way to stop signing. A secret is never echoed; its position is.
 */
const webhookSigningSecrets = z
  .string()
  .optional()
  .transform((value, context) => {
    if (value === undefined) return [];
    const secrets = value.trim().split(/\s+/).filter((secret) => secret !== '');
    const problem = webhookSigningSecretsProblem(secrets);
    if (problem) {
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }
    return secrets;
  });

function webhookSigningSecretsProblem(secrets: string[]): string | undefined {
  if (secrets.length === 0) return 'is empty; set a whsec_ secret, or leave the variable unset to send webhook calls and callbacks unsigned';
  if (secrets.length > 2) return `holds ${secrets.length} secrets; give one, or two (the new and the old) while rotating`;
  if (secrets.length === 2 && secrets[0] === secrets[1]) return 'holds the same secret twice';
  for (const [index, secret] of secrets.entries()) {
    const problem = webhookSecretProblem(secret);
    if (problem) return secrets.length === 1 ? problem : `its ${index === 0 ? 'first' : 'second'} secret ${problem}`;
  }
  return undefined;
}

/** OTEL_EXPORTER_OTLP_ENDPOINT: an http(s) base URL; empty is the same as unset (tracing off). */
const otlpEndpoint = z
  .string()
  .optional()
  .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()))
  .refine((value) => value === undefined || /^https?:\/\/[^\s/]+/.test(value), 'must be an http(s) URL, e.g. http://127.0.0.1:4318');

/**
 * Every environment variable flowgate reads, with its default: THE one place defaults live. The API server, the
 * worker, `createFlowgate` (which reads none unless given `env`) and the testing kit all parse through it.
 */
const envShape = {
  NODE_ENV: z.string().optional(),
  API_AUTH_TOKEN: authToken,
  /** The API keys' file (docs/security.md); empty is unset. */
  API_KEYS_FILE: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? undefined : value)),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3001),
  ENGINE: z.enum(['embedded', 'memory', 'temporal']).optional(),
  /** The durable embedded engine's data directory. @default .flowgate in PROJECT_DIR */
  DATA_DIR: z.string().min(1).optional(),
  DATA_SYNC: z.enum(['full', 'normal']).default('full'),
  RUN_RETENTION_DAYS: z.coerce.number().positive().default(30),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: optionalSecret,
  TEMPORAL_TLS: envBoolean.optional(),
  PAGE_TOKEN_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  DEFAULT_CATALOG: catalogName.default('main'),
  /** The worker's catalog (= task queue). @default DEFAULT_CATALOG */
  WORKER_CATALOG: catalogName.optional(),
  MAX_RESULT_BYTES: positiveInt.default(33_554_432),
  ...payloadLimitsEnv,
  MAX_BODY_BYTES: positiveInt.default(2_097_152),
  RUN_TIMEOUT_MAX_SECONDS: z.coerce.number().positive().default(3600),
  TRACE_DIR: z.string().min(1).default('./traces'),
  ...remoteTraceEnv,
  DEPRECATED_ENDPOINTS: envBoolean.default(true),
  UI: envBoolean.default(true),
  CORS_ORIGINS: corsOrigins,
  COMPRESSION: envBoolean.default(true),
  WEBHOOK_SIGNING_SECRET: webhookSigningSecrets,
  /** Deprecated, for one release: the X-Flowgate-* signature headers besides the Standard Webhooks ones. */
  WEBHOOK_LEGACY_SIGNATURE: envBoolean.default(false),
  CALLBACK_RETRY_MAX_SECONDS: z.coerce.number().positive().default(DEFAULT_CALLBACK_RETRY_FOR_MS / 1000),
  ...outboundEnv,
  WORKFLOWS_DIR: z.string().min(1).default('./workflows'),
  PROJECT_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['info', 'warn', 'error', 'silent']).default('info'),
  METRICS: envBoolean.default(true),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  MEMORY_MAX_CLOSED_RUNS: positiveInt.default(10_000),
  MEMORY_MAX_CLOSED_BYTES: positiveInt.default(268_435_456),
  MEMORY_MAX_HISTORY_BYTES: positiveInt.default(52_428_800),
  MEMORY_MAX_IDEMPOTENCY_BYTES: positiveInt.default(67_108_864),
  HISTORY_PAGE_MAX_BYTES: positiveInt.default(HISTORY_PAGE_MAX_BYTES),
  MAX_CONNECTIONS: positiveInt.default(10_000),
  MAX_EVENT_STREAMS: positiveInt.default(10_000),
  MAX_PIPELINED_REQUESTS: positiveInt.default(8),
  MAX_JSON_DEPTH: positiveInt.default(100),
  HEADERS_TIMEOUT_MS: positiveInt.default(30_000),
  REQUEST_TIMEOUT_MS: positiveInt.default(60_000),
  IDEMPOTENCY_RETENTION_SECONDS: positiveInt.default(86_400),
  OTEL_EXPORTER_OTLP_ENDPOINT: otlpEndpoint,
  OTEL_SERVICE_NAME: z.string().min(1).default('flowgate'),
};

/** The API server's environment (`flowgate serve`, createFlowgate), with the checks across variables it needs. */
export const envSchema = z
  .object(envShape)
  .superRefine((env, context) => {
    if (env.HEADERS_TIMEOUT_MS > env.REQUEST_TIMEOUT_MS) {
      context.addIssue({ code: 'custom', path: ['HEADERS_TIMEOUT_MS'], message: 'must not exceed REQUEST_TIMEOUT_MS' });
    }
    if (env.NODE_ENV === 'production' && env.API_AUTH_TOKEN === undefined && env.API_KEYS_FILE === undefined) {
      context.addIssue({ code: 'custom', path: ['API_AUTH_TOKEN'], message: 'must be set when NODE_ENV=production (or API_KEYS_FILE)' });
    }
    refuseMetricsPortWithoutMetrics(env, context);
    refuseLegacySignatureWithoutSecret(env, context);
    if (env.ENGINE === 'temporal' && !env.TEMPORAL_ADDRESS) {
      context.addIssue({ code: 'custom', path: ['TEMPORAL_ADDRESS'], message: 'must be set when ENGINE=temporal' });
    }
  });

/** A worker's environment: the same variables, with a Temporal frontend to serve. */
export const workerEnvSchema = z
  .object({
    ...envShape,
    TEMPORAL_ADDRESS: z.string({ error: 'is required (host:port of the Temporal frontend)' }).min(1, 'is required (host:port of the Temporal frontend)'),
  })
  .superRefine((env, context) => {
    refuseMetricsPortWithoutMetrics(env, context);
    refuseLegacySignatureWithoutSecret(env, context);
  });

/** API servers and workers alike: a port for metrics that are not kept is a contradiction, not a default. */
function refuseMetricsPortWithoutMetrics(env: { METRICS: boolean; METRICS_PORT?: number | undefined }, context: z.RefinementCtx): void {
  if (env.METRICS_PORT !== undefined && !env.METRICS) {
    context.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: 'serves metrics, which METRICS=off switches off; set one or the other' });
  }
}

/** The legacy headers are a signature too: asking for them without a secret would send nothing, silently. */
function refuseLegacySignatureWithoutSecret(env: { WEBHOOK_LEGACY_SIGNATURE: boolean; WEBHOOK_SIGNING_SECRET: string[] }, context: z.RefinementCtx): void {
  if (env.WEBHOOK_LEGACY_SIGNATURE && env.WEBHOOK_SIGNING_SECRET.length === 0) {
    context.addIssue({ code: 'custom', path: ['WEBHOOK_LEGACY_SIGNATURE'], message: 'adds signature headers, which need WEBHOOK_SIGNING_SECRET; set both, or neither' });
  }
}

export type EnvInput = Record<string, string | undefined>;

export interface FlowgateConfig {
  nodeEnv: string | undefined;
  /** API_AUTH_TOKEN: one API key, id `token`, with every scope. */
  authToken: string | undefined;
  /** API_KEYS_FILE: the API keys (docs/security.md), read again when it changes and on SIGHUP. */
  apiKeysFile: string | undefined;
  host: string;
  port: number;
  /**
   * ENGINE: `embedded` (the default without TEMPORAL_ADDRESS): the embedded engine on its durable store in DATA_DIR;
   * `memory`: the embedded engine in memory (runs live and end with the process); `temporal`.
   */
  engine: 'embedded' | 'memory' | 'temporal';
  /** DATA_DIR, absolute: where the durable embedded engine keeps its runs. @default .flowgate in PROJECT_DIR */
  dataDir: string;
  /** DATA_SYNC: `full` (every commit survives a power loss) or `normal` (survives a crash of the process). @default full */
  dataSync: 'full' | 'normal';
  /** RUN_RETENTION_DAYS in ms: closed runs of the durable embedded engine are deleted this long after they closed. @default 30 days */
  runRetentionMs: number;
  temporal: { address: string; namespace: string; apiKey: string | undefined; tls: boolean | undefined } | undefined;
  /** Signs page tokens; shared by API replicas so a token from one is accepted by another (Temporal). */
  pageTokenSecret: string | undefined;
  defaultCatalog: string;
  maxResultBytes: number;
  /** Large payloads (docs/large-payloads.md): the claim-check threshold and Temporal's per-payload limit without it. */
  payloads: PayloadLimits;
  maxBodyBytes: number;
  runTimeoutMaxSeconds: number;
  traceDir: string;
  /** TRACE_S3_*: remote traces in S3 or an S3-compatible store. */
  remoteTraces: RemoteTraceConfig | undefined;
  deprecatedEndpoints: boolean;
  /** UI: the browser UI at GET /ui (docs/ui.md). @default true */
  ui: boolean;
  /** CORS_ORIGINS: origins whose pages may call the API from a browser, or `*`; empty: CORS off. @default none */
  corsOrigins: readonly string[];
  /** COMPRESSION: brotli or gzip for answers of 1 KiB and more, when the client accepts it (docs/api.md). @default true */
  compression: boolean;
  /**
   * WEBHOOK_SIGNING_SECRET and WEBHOOK_LEGACY_SIGNATURE: the `whsec_` secrets webhook calls and run callbacks are
   * signed with (Standard Webhooks, docs/callbacks.md), and whether the deprecated X-Flowgate-* headers are sent too.
   * Undefined: calls are not signed.
   */
  webhookSigning: { secrets: readonly string[]; legacyHeaders: boolean } | undefined;
  /** CALLBACK_RETRY_MAX_SECONDS in ms: how long a run's callback is retried after the close (docs/callbacks.md). */
  callbackRetryForMs: number;
  /** OUTBOUND_ALLOWLIST (with OUTBOUND_ALLOW_PUBLIC): hosts and networks webhook calls and run callbacks may reach although the address rules refuse them. */
  outboundAllowlist: OutboundAllowlist;
  /** WORKFLOWS_DIR: the modules whose exported workflows are served. @default ./workflows */
  workflowsDir: string;
  /** WORKER_CATALOG, else DEFAULT_CATALOG: the catalog a worker serves. */
  workerCatalog: string;
  /** PROJECT_DIR: the embedded worker serves the exposed packages in its node_modules. @default the current directory */
  projectDir: string;
  logLevel: 'info' | 'warn' | 'error' | 'silent';
  /**
   * METRICS, METRICS_PORT (docs/operations.md, Metrics): whether metrics are kept and served at GET /metrics (behind
   * the token), and a port of their own where they are served without it (on HOST; 0 picks one).
   */
  metrics: { enabled: boolean; port: number | undefined };
  shutdownGraceMs: number;
  /** MEMORY_MAX_CLOSED_RUNS (ENGINE=memory only): closed runs kept before the oldest are forgotten. */
  memoryMaxClosedRuns: number;
  /** Bytes the embedded engine's closed runs may keep together before the oldest are forgotten. @default 256 MiB */
  memoryMaxClosedBytes: number;
  /** One run's history on the embedded engine, in bytes; past it the run is terminated. @default 50 MiB */
  memoryMaxHistoryBytes: number;
  /** Bytes of the embedded engine's Idempotency-Key records of starts; a keyed start beyond is refused. @default 64 MiB */
  memoryMaxIdempotencyBytes: number;
  /** About how many bytes of events a history page holds, and a history stream reads ahead, on every engine. @default 1 MiB */
  historyPageMaxBytes: number;
  /** Limits that keep one client or an overload from holding the server (docs/reliability.md). */
  limits: {
    maxConnections: number;
    maxEventStreams: number;
    maxJsonDepth: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    /** MAX_PIPELINED_REQUESTS: requests of one connection answered at once; beyond, the connection is not read. */
    maxPipelinedRequests: number;
  };
  /** How long the answer to a request with an Idempotency-Key is kept once final (docs/idempotency.md). @default 86400 */
  idempotencyRetentionSeconds: number;
  /**
   * OTEL_EXPORTER_OTLP_ENDPOINT (with OTEL_SERVICE_NAME): spans exported over OTLP/HTTP (docs/operations.md,
   * Tracing). Undefined: tracing off, and no OpenTelemetry module is loaded.
   */
  tracing: { endpoint: string; serviceName: string } | undefined;
}

/** Raised for invalid configuration; `problems` holds one line per bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  }
}

export function parseConfig(env: EnvInput): FlowgateConfig {
  return toConfig(parseEnv(envSchema, env));
}

/** Parses `env` with `schema`; throws ConfigError with one line per bad variable. */
export function parseEnv<T>(schema: z.ZodType<T>, env: EnvInput): T {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}`));
  }
  return parsed.data;
}

export function toConfig(value: z.output<typeof envSchema>): FlowgateConfig {
  return {
    nodeEnv: value.NODE_ENV,
    authToken: value.API_AUTH_TOKEN,
    apiKeysFile: value.API_KEYS_FILE,
    host: value.HOST,
    port: value.PORT,
    // `temporal` when TEMPORAL_ADDRESS is set, unless ENGINE says otherwise (README, Configuration).
    engine: value.ENGINE ?? (value.TEMPORAL_ADDRESS ? 'temporal' : 'embedded'),
    dataDir: resolve(value.PROJECT_DIR ?? process.cwd(), value.DATA_DIR ?? '.flowgate'),
    dataSync: value.DATA_SYNC,
    runRetentionMs: Math.round(value.RUN_RETENTION_DAYS * 24 * 3600 * 1000),
    temporal: value.TEMPORAL_ADDRESS
      ? { address: value.TEMPORAL_ADDRESS, namespace: value.TEMPORAL_NAMESPACE, apiKey: value.TEMPORAL_API_KEY, tls: value.TEMPORAL_TLS }
      : undefined,
    pageTokenSecret: value.PAGE_TOKEN_SECRET,
    defaultCatalog: value.DEFAULT_CATALOG,
    maxResultBytes: value.MAX_RESULT_BYTES,
    payloads: payloadLimits(value),
    maxBodyBytes: value.MAX_BODY_BYTES,
    runTimeoutMaxSeconds: value.RUN_TIMEOUT_MAX_SECONDS,
    traceDir: value.TRACE_DIR,
    remoteTraces: remoteTraceConfig(value),
    deprecatedEndpoints: value.DEPRECATED_ENDPOINTS,
    ui: value.UI,
    corsOrigins: value.CORS_ORIGINS,
    compression: value.COMPRESSION,
    webhookSigning:
      value.WEBHOOK_SIGNING_SECRET.length > 0 ? { secrets: value.WEBHOOK_SIGNING_SECRET, legacyHeaders: value.WEBHOOK_LEGACY_SIGNATURE } : undefined,
    callbackRetryForMs: Math.round(value.CALLBACK_RETRY_MAX_SECONDS * 1000),
    outboundAllowlist: outboundPolicy(value),
    workflowsDir: value.WORKFLOWS_DIR,
    workerCatalog: value.WORKER_CATALOG ?? value.DEFAULT_CATALOG,
    projectDir: value.PROJECT_DIR ?? process.cwd(),
    logLevel: value.LOG_LEVEL,
    metrics: { enabled: value.METRICS, port: value.METRICS_PORT },
    shutdownGraceMs: value.SHUTDOWN_GRACE_MS,
    memoryMaxClosedRuns: value.MEMORY_MAX_CLOSED_RUNS,
    memoryMaxClosedBytes: value.MEMORY_MAX_CLOSED_BYTES,
    memoryMaxHistoryBytes: value.MEMORY_MAX_HISTORY_BYTES,
    memoryMaxIdempotencyBytes: value.MEMORY_MAX_IDEMPOTENCY_BYTES,
    historyPageMaxBytes: value.HISTORY_PAGE_MAX_BYTES,
    limits: {
      maxConnections: value.MAX_CONNECTIONS,
      maxEventStreams: value.MAX_EVENT_STREAMS,
      maxJsonDepth: value.MAX_JSON_DEPTH,
      headersTimeoutMs: value.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: value.REQUEST_TIMEOUT_MS,
      maxPipelinedRequests: value.MAX_PIPELINED_REQUESTS,
    },
    idempotencyRetentionSeconds: value.IDEMPOTENCY_RETENTION_SECONDS,
    tracing: value.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: value.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: value.OTEL_SERVICE_NAME } : undefined,
  };
}
