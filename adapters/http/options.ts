import type { FlowgateApi } from '../../core/api/flowgateApi.js';
import type { IdGenerator } from '../../ports/ids.js';
import type { Logger } from '../../ports/logger.js';
import { noTracing, type Tracing } from '../../ports/tracing.js';
import type { ExposedMetrics } from '../../ports/metrics.js';
import type { AccessKeyRegistry } from '../../ports/accessKeys.js';
import { corsOriginProblems } from './cors.js';

/** Options of {@link createHttpApp}, also accepted by the node, fetch and server entry points. */
export interface HttpAppOptions {
  /** The use cases the endpoints call. */
  api: FlowgateApi;
  /** Receives one access-log line per request and every 5xx with its cause chain. */
  logger: Logger;
  /** Generates request ids when a request brings no valid `X-Request-Id`. */
  ids: IdGenerator;
  /**
   * Observes every request (by route template, method and status) and open event streams, and is what GET /metrics
   * exposes. @default none: nothing observed, GET /metrics answers 404
   */
  metrics?: ExposedMetrics;
  /**
   * Bearer token every endpoint except GET /ready, /health and /openapi.json requires. Omit it to accept
   * unauthenticated requests (local development only); an empty string is refused as a likely misconfiguration.
   * It is one API key, id `token`, with every scope (docs/security.md).
   * @default undefined
   */
  authToken?: string;
  /**
   * The API keys requests authenticate with (docs/security.md: scopes, catalog and workflow limits, expiry); with
   * `authToken` too, the token is one more key. Asked on every request, so a registry that reloads its keys
   * (API_KEYS_FILE) changes them without a restart. @default none
   */
  accessKeys?: AccessKeyRegistry;
  /**
   * Largest accepted request body in bytes; larger bodies are answered 413 without being read to the end.
   * Configuration (MAX_BODY_BYTES), so its default lives with the others in composition/config.ts.
   */
  maxBodyBytes: number;
  /** Largest `timeout` (seconds) POST /workflow/run accepts; more is a 400 (RUN_TIMEOUT_MAX_SECONDS). */
  runTimeoutMaxSeconds: number;
  /**
   * `timeout` (seconds) of POST /workflow/run when the request names none. Left unset with a
   * `runTimeoutMaxSeconds` below 30, it is that maximum (a low maximum is a valid configuration); set explicitly
   * above the maximum, it is refused.
   * @default 30, or runTimeoutMaxSeconds when that is lower
   */
  defaultRunTimeoutSeconds?: number;
  /**
   * When false, PATCH /workflow/{id}/stop and POST /workflow/{id}/reset answer 410 `GoneError` pointing at the
   * run-pinned form (DEPRECATED_ENDPOINTS).
   */
  deprecatedEndpoints: boolean;
  /**
   * Interval of the `: keep-alive` comment on idle server-sent event streams, in milliseconds. Proxies close idle
   * connections, and a history stream of a waiting workflow can be quiet for hours.
   * @default 15000
   */
  sseHeartbeatMs?: number;
  /**
   * Most server-sent event streams open at once; one more is answered 503 `ServerBusyError` with `Retry-After`.
   * Each stream holds a connection and a follower of the engine's history for as long as the run lasts
   * (MAX_EVENT_STREAMS).
   */
  maxEventStreams: number;
  /**
   * Deepest nesting of arrays and objects a JSON body may have; deeper is a 400. Deep values cost nothing to parse
   * but overflow the stack of every recursive step after (serialisation, schema checks, the engine's converters)
   * (MAX_JSON_DEPTH).
   */
  maxJsonDepth: number;
  /**
   * The path the API is served under, e.g. `/flows`. A request whose path starts with it has it removed before
   * routing (a server or framework that hands over the whole URL: node:http, Fastify, Hono's `app.all`); a request a
   * framework already stripped (Express's `app.use('/flows', ...)`, which says so in `req.baseUrl`; Hono's `mount`) is
   * routed as it is. Either way `Location`, `Link`, the paths error messages name and the access log carry it, so a
   * client follows them as they are.
   * @default none: the API at the root
   */
  basePath?: string;
  /**
   * Check every JSON response against the schema the OpenAPI document publishes for its status; a mismatch is
   * logged and answered 500. Meant for tests and staging, where drift between core and contract must be loud.
   * @default false
   */
  validateResponses?: boolean;
  /**
   * Serve the browser UI at GET /ui (docs/ui.md). Its files are public; its data calls need the token like any
   * other call. When false, /ui is an unknown path (404).
   * @default true
   */
  ui?: boolean;
  /**
   * The built UI to serve (index.html and assets/).
   * @default the UI the package ships, dist/ui
   */
  uiDir?: string;
  /**
   * Origins whose pages may call the API from a browser (CORS, docs/api.md; CORS_ORIGINS): each as browsers send
   * `Origin` (`https://app.example.com`, `http://127.0.0.1:5173`), or `['*']` for any origin, which never allows
   * credentials. A listed origin's preflights are answered 204, and its answers carry `Access-Control-Allow-Origin`
   * and the headers a script may read; another origin gets no CORS header.
   * @default none: no CORS header, a preflight is an OPTIONS like any other (405)
   */
  corsOrigins?: readonly string[];
  /**
   * Compress JSON, text and SVG answers of 1 KiB and more in brotli or gzip when the request's `Accept-Encoding`
   * accepts one (docs/api.md, Compression; COMPRESSION). Turn it off behind a host or proxy that compresses itself.
   * @default true
   */
  compression?: boolean;
  /**
   * A span per request (named after its route), child of the request's W3C `traceparent` when it brings one; the
   * engine calls the request makes run inside it (docs/operations.md, Tracing). @default none
   */
  tracing?: Tracing;
}

/**
 * The defaults that are the adapter's own. Those the operator configures (body cap, run timeout maximum, stream and
 * depth limits, deprecated endpoints) are required options: composition/config.ts holds their defaults, once.
 */
export const HTTP_APP_DEFAULTS = {
  defaultRunTimeoutSeconds: 30,
  sseHeartbeatMs: 15_000,
  validateResponses: false,
  ui: true,
  compression: true,
} as const satisfies Partial<HttpAppOptions>;

/** The options with every default filled in: HttpAppOptions, with what has a default no longer optional. */
export type ResolvedHttpAppOptions = Omit<HttpAppOptions, keyof typeof HTTP_APP_DEFAULTS | 'tracing' | 'corsOrigins'> &
  Required<Pick<HttpAppOptions, keyof typeof HTTP_APP_DEFAULTS | 'tracing' | 'corsOrigins'>>;

/** Fills defaults and refuses bad options at construction, naming the option (not on the first request). */
export function resolveHttpAppOptions(options: HttpAppOptions): ResolvedHttpAppOptions {
  const problems: string[] = [];
  for (const port of ['api', 'logger', 'ids'] as const) {
    if (options[port] === undefined || options[port] === null) problems.push(`${port} is required`);
  }
  if (options.authToken !== undefined && (typeof options.authToken !== 'string' || options.authToken.length === 0)) {
    problems.push('authToken must be a non-empty string (omit it to disable authentication)');
  } else if (options.authToken !== undefined && /\s/.test(options.authToken)) {
    // A bearer token is sent as `Bearer <token>`; one with whitespace could never match.
    problems.push('authToken must not contain whitespace');
  }
  const resolved: ResolvedHttpAppOptions = {
    ...HTTP_APP_DEFAULTS,
    tracing: noTracing,
    corsOrigins: [],
    ...withoutUndefined(options),
    defaultRunTimeoutSeconds: options.defaultRunTimeoutSeconds ?? Math.min(HTTP_APP_DEFAULTS.defaultRunTimeoutSeconds, options.runTimeoutMaxSeconds),
    basePath: normalizedBasePath(options.basePath, problems),
  };
  if (!Number.isSafeInteger(resolved.maxBodyBytes) || resolved.maxBodyBytes < 1) {
    problems.push(`maxBodyBytes must be a positive integer, got ${String(resolved.maxBodyBytes)}`);
  }
  if (!isPositiveFinite(resolved.runTimeoutMaxSeconds)) {
    problems.push(`runTimeoutMaxSeconds must be a positive number, got ${String(resolved.runTimeoutMaxSeconds)}`);
  }
  if (!isPositiveFinite(resolved.defaultRunTimeoutSeconds)) {
    problems.push(`defaultRunTimeoutSeconds must be a positive number, got ${String(resolved.defaultRunTimeoutSeconds)}`);
  } else if (resolved.defaultRunTimeoutSeconds > resolved.runTimeoutMaxSeconds) {
    problems.push(
      `defaultRunTimeoutSeconds (${resolved.defaultRunTimeoutSeconds}) must not exceed runTimeoutMaxSeconds (${resolved.runTimeoutMaxSeconds})`,
    );
  }
  if (typeof resolved.deprecatedEndpoints !== 'boolean') problems.push('deprecatedEndpoints must be a boolean');
  if (typeof resolved.validateResponses !== 'boolean') problems.push('validateResponses must be a boolean');
  if (typeof resolved.ui !== 'boolean') problems.push('ui must be a boolean');
  if (typeof resolved.compression !== 'boolean') problems.push('compression must be a boolean');
  if (resolved.uiDir !== undefined && (typeof resolved.uiDir !== 'string' || resolved.uiDir.length === 0)) problems.push('uiDir must be a non-empty string');
  // Below ~1 s a heartbeat is noise, but tests need short intervals, so only positivity is enforced.
  if (!Number.isSafeInteger(resolved.sseHeartbeatMs) || resolved.sseHeartbeatMs < 1) {
    problems.push(`sseHeartbeatMs must be a positive integer, got ${String(resolved.sseHeartbeatMs)}`);
  }
  for (const name of ['maxEventStreams', 'maxJsonDepth'] as const) {
    if (!Number.isSafeInteger(resolved[name]) || resolved[name] < 1) problems.push(`${name} must be a positive integer, got ${String(resolved[name])}`);
  }
  if (!Array.isArray(resolved.corsOrigins) || resolved.corsOrigins.some((origin) => typeof origin !== 'string')) {
    problems.push('corsOrigins must be an array of origins');
  } else {
    problems.push(...corsOriginProblems(resolved.corsOrigins).map((problem) => `corsOrigins: ${problem}`));
  }
  if (resolved.accessKeys !== undefined && typeof resolved.accessKeys?.lookup !== 'function') problems.push('accessKeys must have a lookup(secret) method');
  if (problems.length > 0) throw new TypeError(`Invalid HTTP adapter options: ${problems.join('; ')}`);
  return resolved;
}

/** `/flows/` and `/flows` are one base path; `` and `/` are none. */
function normalizedBasePath(basePath: unknown, problems: string[]): string | undefined {
  if (basePath === undefined || basePath === '' || basePath === '/') return undefined;
  if (typeof basePath !== 'string' || !/^\/[^?#\s]*$/.test(basePath) || basePath.includes('//')) {
    problems.push(`basePath must be a path such as "/flows" (no query, fragment, spaces or empty segments), got ${JSON.stringify(basePath)}`);
    return undefined;
  }
  return basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
}

/** An option given as `undefined` takes its default, as one left out does. */
function withoutUndefined<T extends object>(options: T): T {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as T;
}

function isPositiveFinite(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0;
}
