import { resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_CALLBACK_RETRY_FOR_MS } from '../core/domain/callback.js';
import { HISTORY_PAGE_MAX_BYTES } from '../core/domain/history.js';
import { remoteTraceConfig, remoteTraceEnv } from './remoteTraceConfig.js';
import { envNumber } from './envNumber.js';
import { payloadLimits, payloadLimitsEnv } from './payloadLimits.js';
import { outboundEnv, outboundPolicy } from './outboundConfig.js';
import { envBoolean } from './envBoolean.js';
import { corsOriginProblems } from '../adapters/http/cors.js';
import type { HttpAppOptions, HttpServerOptions } from '../adapters/http/index.js';
import { webhookSecretProblem } from '../adapters/webhook/standardWebhooks.js';

/**
 * What the HTTP app takes from the configuration: everything but its parts, the mount (an embedder's) and the keys
 * (composition/accessKeys.ts, API_AUTH_TOKEN's among them).
 */
export type HttpAppSettings = Omit<HttpAppOptions, 'api' | 'logger' | 'ids' | 'basePath' | 'authToken' | 'accessKeys' | 'tracing' | 'metrics'>;
/** What the bundled server's listener takes from the configuration besides the app. */
export type HttpListenerSettings = Pick<HttpServerOptions, 'host' | 'port' | 'headersTimeoutMs' | 'requestTimeoutMs' | 'maxConnections' | 'maxPipelinedRequests'>;

const positiveInt = envNumber(z.number().int().positive());
/** The longest a Node timer waits: a longer one fires at once. */
const MAX_TIMER_MS = 2_147_483_647;
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
  PORT: envNumber(z.number().int().min(0).max(65535)).default(3001),
  ENGINE: z.enum(['embedded', 'memory', 'temporal']).optional(),
  /** The durable embedded engine's data directory. @default .flowgate in PROJECT_DIR */
  DATA_DIR: z.string().min(1).optional(),
  DATA_SYNC: z.enum(['full', 'normal']).default('full'),
  RUN_RETENTION_DAYS: envNumber(z.number().positive()).default(30),
  TEMPORAL_ADDRESS: z.string().min(1).optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_API_KEY: optionalSecret,
  TEMPORAL_TLS: envBoolean.optional(),
  /** How the API's client sends its gRPC calls (docs/operations.md). @default http2, or grpc-js when a proxy is set */
  TEMPORAL_GRPC_TRANSPORT: z.enum(['http2', 'grpc-js']).optional(),
  // The proxy variables grpc-js honours: only grpc-js's transport goes through a proxy.
  grpc_proxy: z.string().optional(),
  https_proxy: z.string().optional(),
  http_proxy: z.string().optional(),
  PAGE_TOKEN_SECRET: z.string().min(16, 'must be at least 16 characters').optional(),
  DEFAULT_CATALOG: catalogName.default('main'),
  /** The worker's catalog (= task queue). @default DEFAULT_CATALOG */
  WORKER_CATALOG: catalogName.optional(),
  MAX_RESULT_BYTES: positiveInt.default(33_554_432),
  ...payloadLimitsEnv,
  MAX_BODY_BYTES: positiveInt.default(2_097_152),
  RUN_TIMEOUT_MAX_SECONDS: envNumber(z.number().positive()).default(3600),
  TRACE_DIR: z.string().min(1).default('./traces'),
  ...remoteTraceEnv,
  DEPRECATED_ENDPOINTS: envBoolean.default(true),
  UI: envBoolean.default(true),
  CORS_ORIGINS: corsOrigins,
  COMPRESSION: envBoolean.default(true),
  WEBHOOK_SIGNING_SECRET: webhookSigningSecrets,
  /** Deprecated, for one release: the X-Flowgate-* signature headers besides the Standard Webhooks ones. */
  WEBHOOK_LEGACY_SIGNATURE: envBoolean.default(false),
  CALLBACK_RETRY_MAX_SECONDS: envNumber(z.number().positive()).default(DEFAULT_CALLBACK_RETRY_FOR_MS / 1000),
  ...outboundEnv,
  WORKFLOWS_DIR: z.string().min(1).default('./workflows'),
  PROJECT_DIR: z.string().min(1).optional(),
  LOG_LEVEL: z.enum(['info', 'warn', 'error', 'silent']).default('info'),
  METRICS: envBoolean.default(true),
  METRICS_PORT: envNumber(z.number().int().min(0).max(65535)).optional(),
  SHUTDOWN_GRACE_MS: envNumber(z.number().int().min(0).max(MAX_TIMER_MS)).default(10_000),
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

type Env = z.output<z.ZodObject<typeof envShape>>;

/**
 * The configuration the parsed environment builds: every part of flowgate reads these names, not the variables. Its
 * type (FlowgateConfig) is inferred from what this returns, so a setting is declared by its variable in envShape and
 * its place here, nowhere else.
 */
function configOf(env: Env) {
  return {
    nodeEnv: env.NODE_ENV,
    /** API_AUTH_TOKEN: one API key, id `token`, with every scope. */
    authToken: env.API_AUTH_TOKEN,
    /** API_KEYS_FILE: the API keys (docs/security.md), read again when it changes and on SIGHUP. */
    apiKeysFile: env.API_KEYS_FILE,
    /**
     * ENGINE: `embedded` (the default without TEMPORAL_ADDRESS): the embedded engine on its durable store in DATA_DIR;
     * `memory`: the embedded engine in memory (runs live and end with the process); `temporal`.
     */
    engine: env.ENGINE ?? (env.TEMPORAL_ADDRESS ? 'temporal' : 'embedded'),
    /** DATA_DIR, absolute: where the durable embedded engine keeps its runs. @default .flowgate in PROJECT_DIR */
    dataDir: resolve(env.PROJECT_DIR ?? process.cwd(), env.DATA_DIR ?? '.flowgate'),
    /** DATA_SYNC: `full` (every commit survives a power loss) or `normal` (survives a crash of the process). @default full */
    dataSync: env.DATA_SYNC,
    /** RUN_RETENTION_DAYS in ms: closed runs of the durable embedded engine are deleted this long after they closed. @default 30 days */
    runRetentionMs: Math.round(env.RUN_RETENTION_DAYS * 24 * 3600 * 1000),
    temporal: env.TEMPORAL_ADDRESS
      ? {
          address: env.TEMPORAL_ADDRESS,
          namespace: env.TEMPORAL_NAMESPACE,
          apiKey: env.TEMPORAL_API_KEY,
          tls: env.TEMPORAL_TLS,
          transport: env.TEMPORAL_GRPC_TRANSPORT ?? (env.grpc_proxy || env.https_proxy || env.http_proxy ? ('grpc-js' as const) : ('http2' as const)),
        }
      : undefined,
    /** Signs page tokens; shared by API replicas so a token from one is accepted by another (Temporal). */
    pageTokenSecret: env.PAGE_TOKEN_SECRET,
    defaultCatalog: env.DEFAULT_CATALOG,
    maxResultBytes: env.MAX_RESULT_BYTES,
    /** Large payloads (docs/large-payloads.md): the claim-check threshold and Temporal's per-payload limit without it. */
    payloads: payloadLimits(env),
    traceDir: env.TRACE_DIR,
    /** TRACE_S3_*: remote traces in S3 or an S3-compatible store. */
    remoteTraces: remoteTraceConfig(env),
    /**
     * WEBHOOK_SIGNING_SECRET and WEBHOOK_LEGACY_SIGNATURE: the `whsec_` secrets webhook calls and run callbacks are
     * signed with (Standard Webhooks, docs/callbacks.md), and whether the deprecated X-Flowgate-* headers are sent too.
     * Undefined: calls are not signed.
     */
    webhookSigning:
      env.WEBHOOK_SIGNING_SECRET.length > 0
        ? { secrets: env.WEBHOOK_SIGNING_SECRET as readonly string[], legacyHeaders: env.WEBHOOK_LEGACY_SIGNATURE }
        : undefined,
    /** CALLBACK_RETRY_MAX_SECONDS in ms: how long a run's callback is retried after the close (docs/callbacks.md). */
    callbackRetryForMs: Math.round(env.CALLBACK_RETRY_MAX_SECONDS * 1000),
    /** OUTBOUND_ALLOWLIST (with OUTBOUND_ALLOW_PUBLIC): hosts and networks webhook calls and run callbacks may reach although the address rules refuse them. */
    outboundAllowlist: outboundPolicy(env),
    /** WORKFLOWS_DIR: the modules whose exported workflows are served. @default ./workflows */
    workflowsDir: env.WORKFLOWS_DIR,
    /** WORKER_CATALOG, else DEFAULT_CATALOG: the catalog a worker serves. */
    workerCatalog: env.WORKER_CATALOG ?? env.DEFAULT_CATALOG,
    /** PROJECT_DIR: the embedded worker serves the exposed packages in its node_modules. @default the current directory */
    projectDir: env.PROJECT_DIR ?? process.cwd(),
    logLevel: env.LOG_LEVEL,
    /**
     * METRICS, METRICS_PORT (docs/operations.md, Metrics): whether metrics are kept and served at GET /metrics (behind
     * the token), and a port of their own where they are served without it (on HOST; 0 picks one).
     */
    metrics: { enabled: env.METRICS, port: env.METRICS_PORT },
    shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
    /** MEMORY_MAX_CLOSED_RUNS (ENGINE=memory only): closed runs kept before the oldest are forgotten. */
    memoryMaxClosedRuns: env.MEMORY_MAX_CLOSED_RUNS,
    /** Bytes the embedded engine's closed runs may keep together before the oldest are forgotten. @default 256 MiB */
    memoryMaxClosedBytes: env.MEMORY_MAX_CLOSED_BYTES,
    /** One run's history on the embedded engine, in bytes; past it the run is terminated. @default 50 MiB */
    memoryMaxHistoryBytes: env.MEMORY_MAX_HISTORY_BYTES,
    /** Bytes of the embedded engine's Idempotency-Key records of starts; a keyed start beyond is refused. @default 64 MiB */
    memoryMaxIdempotencyBytes: env.MEMORY_MAX_IDEMPOTENCY_BYTES,
    /** About how many bytes of events a history page holds, and a history stream reads ahead, on every engine. @default 1 MiB */
    historyPageMaxBytes: env.HISTORY_PAGE_MAX_BYTES,
    /**
     * The HTTP app's settings, named as its options (adapters/http/options.ts), so they are handed over as they are.
     * Its limits keep one client or an overload from holding the server (docs/reliability.md).
     */
    http: {
      maxBodyBytes: env.MAX_BODY_BYTES,
      runTimeoutMaxSeconds: env.RUN_TIMEOUT_MAX_SECONDS,
      deprecatedEndpoints: env.DEPRECATED_ENDPOINTS,
      /** UI: the browser UI at GET /ui (docs/ui.md). @default true */
      ui: env.UI,
      /** CORS_ORIGINS: origins whose pages may call the API from a browser, or `*`; unset or empty: CORS off. */
      ...(env.CORS_ORIGINS.length === 0 ? {} : { corsOrigins: env.CORS_ORIGINS as readonly string[] }),
      /** COMPRESSION: brotli or gzip for answers of 1 KiB and more, when the client accepts it (docs/api.md). @default true */
      compression: env.COMPRESSION,
      maxEventStreams: env.MAX_EVENT_STREAMS,
      maxJsonDepth: env.MAX_JSON_DEPTH,
    } satisfies HttpAppSettings,
    /** The bundled server's listener (`flowgate serve`), named as its options (adapters/http/server.ts). */
    listener: {
      host: env.HOST,
      port: env.PORT,
      maxConnections: env.MAX_CONNECTIONS,
      headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
      /** MAX_PIPELINED_REQUESTS: requests of one connection answered at once; beyond, the connection is not read. */
      maxPipelinedRequests: env.MAX_PIPELINED_REQUESTS,
    } satisfies HttpListenerSettings,
    /** How long the answer to a request with an Idempotency-Key is kept once final (docs/idempotency.md). @default 86400 */
    idempotencyRetentionSeconds: env.IDEMPOTENCY_RETENTION_SECONDS,
    /**
     * OTEL_EXPORTER_OTLP_ENDPOINT (with OTEL_SERVICE_NAME): spans exported over OTLP/HTTP (docs/operations.md,
     * Tracing). Undefined: tracing off, and no OpenTelemetry module is loaded.
     */
    tracing: env.OTEL_EXPORTER_OTLP_ENDPOINT ? { endpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT, serviceName: env.OTEL_SERVICE_NAME } : undefined,
  };
}

/** The API server's environment (`flowgate serve`, createFlowgate), with the checks across variables it needs; parses to the configuration. */
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
  })
  .transform(configOf);

/** The configuration of the API server, createFlowgate and workers alike: what envSchema builds. */
export type FlowgateConfig = z.output<typeof envSchema>;

/** A worker's environment: the same variables, with a Temporal frontend to serve; parses to the worker's configuration. */
export const workerEnvSchema = z
  .object({
    ...envShape,
    TEMPORAL_ADDRESS: z.string({ error: 'is required (host:port of the Temporal frontend)' }).min(1, 'is required (host:port of the Temporal frontend)'),
  })
  .superRefine((env, context) => {
    refuseMetricsPortWithoutMetrics(env, context);
    refuseLegacySignatureWithoutSecret(env, context);
  })
  .transform((env) => {
    const config = configOf(env);
    return { ...config, temporal: config.temporal!, catalog: config.workerCatalog };
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

/** Raised for invalid configuration; `problems` holds one line per bad variable. */
export class ConfigError extends Error {
  override name = 'ConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  ${problem}`).join('\n')}`);
  }
}

export function parseConfig(env: EnvInput): FlowgateConfig {
  return parseEnv(envSchema, env);
}

/** Parses `env` with `schema`; throws ConfigError with one line per bad variable. */
export function parseEnv<T>(schema: z.ZodType<T>, env: EnvInput): T {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || 'environment'}: ${issue.message}${issue.code === 'custom' ? '' : valueShown(env, issue.path)}`),
    );
  }
  return parsed.data;
}

/** Variables whose values are never repeated in a message: they may hold a secret. */
const SECRET_NAME = /TOKEN|SECRET|PASSWORD|KEY|CREDENTIAL/i;

/**
 * ` (got "value")` for a variable zod's own checks refused, as the command-line options say it (our own checks' messages
 * name the value themselves); nothing for a secret's.
 */
function valueShown(env: EnvInput, path: readonly PropertyKey[]): string {
  const name = path.length === 1 ? path[0] : undefined;
  if (typeof name !== 'string' || SECRET_NAME.test(name)) return '';
  const value = (env as Record<string, unknown>)[name];
  return typeof value === 'string' ? ` (got ${JSON.stringify(value)})` : '';
}
