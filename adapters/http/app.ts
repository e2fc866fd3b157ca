import { childLogger, type Logger } from '../../ports/logger.js';
import type { TraceSpan, Tracing } from '../../ports/tracing.js';
import { FlowgateError } from '../../core/domain/errors.js';
import { idPathSegment } from '../../core/domain/ids.js';
import { createAuthenticator, unauthorized } from './auth.js';
import { queryObject, splitTarget } from './requestTarget.js';
import { requireScope, type AccessKey } from '../../core/domain/access.js';
import { EMPTY_BODY, readJsonBody } from './body.js';
import { CorsPolicy } from './cors.js';
import { ResponseCompression } from './compression.js';
import { answerError, causeChain } from './errorTable.js';
import { EventStreamSlots } from './eventStreamSlots.js';
import { etagOf } from './etag.js';
import { buildOpenApiDocument, type OpenApiDocument } from './openapi.js';
import { resolveHttpAppOptions, type HttpAppOptions, type ResolvedHttpAppOptions } from './options.js';
import type { Route, RouteContext, RouteInput, RouteResult, SerializedDocument } from './route.js';
import type { FlowgateApi } from '../../core/api/flowgateApi.js';
import type { ExposedMetrics } from '../../ports/metrics.js';
import { afterLast, jsonBody, withoutBody } from './responseBody.js';
import { DEPRECATION_HEADER } from './responseDocs.js';
import { Router, type RouteMatch } from './router.js';
import { createRoutes } from './routes.js';
import { defaultUiDir, loadUiFiles, UI_METHODS } from './ui.js';
import { firstHeader, isStreamedBody, type HttpHandler, type HttpRequest, type HttpResponse } from './types.js';
import { ClientClosedRequestError, GoneError, MethodNotAllowedError, NotFoundError, ServerBusyError } from './transportErrors.js';
import { parseRequestPart } from './validation.js';

export interface HttpApp {
  /** Answers one request; never rejects. */
  handle: HttpHandler;
  readonly routes: readonly Route[];
  /** The document served at /openapi.json under `basePath` (its `servers` URL the prefix); a framework's mount adds its own. */
  readonly openApiDocument: OpenApiDocument;
  /** The logger the app was given, for transports' own failures. */
  readonly logger: Logger;
  /**
   * The answer to a request refused below the app (node:http's parser: bad framing, headers too large, too slow;
   * an unsupported Expect): the same error body, `X-Request-Id` and access-log line as every other error. The
   * method and target are those the parser had read, when it had.
   */
  refusal(error: unknown, request?: { method?: string | undefined; url?: string | undefined }): HttpResponse;
}

const VALID_REQUEST_ID = /^[A-Za-z0-9._:-]{1,200}$/;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What one request learned on its way, needed to finish the response even when it fails midway. */
interface RequestState {
  route?: Route;
  workflowId?: string;
  /** The run the request acted on, when known (fills the deprecated endpoints' Link). */
  runId?: string;
  allow?: readonly string[];
  /** The API key the request authenticated with (its id goes in the access log). */
  key?: AccessKey;
}

/**
 * The transport-neutral HTTP application: routing, auth, validation, errors and server-sent events. Wrap it with
 * node.ts (node:http, Express) or fetch.ts (WHATWG Request/Response). Throws on invalid options.
 */
export function createHttpApp(options: HttpAppOptions): HttpApp {
  const config = resolveHttpAppOptions(options);
  const routes = createRoutes(config);
  const router = new Router(routes);
  const authenticator = createAuthenticator(config);
  const openApiDocument = buildOpenApiDocument(routes);
  const openApiSerialized = openApiDocumentByMount(openApiDocument);
  const { logger, metrics } = config;
  const eventStreams = new EventStreamSlots(config.maxEventStreams, metrics && ((delta) => metrics.eventStreamsOpen(delta)));
  const ui = config.ui ? loadUiFiles(config.uiDir ?? defaultUiDir(), logger) : undefined;
  const cors = config.corsOrigins.length > 0 ? new CorsPolicy(config.corsOrigins, routes.map((route) => route.method)) : undefined;
  const compression = config.compression ? new ResponseCompression() : undefined;
  const shared: SharedContext = { config, logger, eventStreams, openApiSerialized };

  async function handle(request: HttpRequest): Promise<HttpResponse> {
    const startedAt = performance.now();
    const requestId = acceptedRequestId(firstHeader(request.headers, 'x-request-id')) ?? config.ids.uuid();
    const target = splitTarget(request.url);
    const { search } = target;
    const { path, mount } = mountedPath(target.path, request.basePath, config.basePath);
    // What the client sent (or, behind a framework that stripped the prefix, what it addressed): logs and messages.
    const shownPath = mount ? `${mount}${path}` : path;
    const state: RequestState = {};
    const span = requestSpan(config.tracing, request, requestId);
    const context = new RequestContext(shared, request, requestId, state, span, shownPath, mount);

    let response: HttpResponse;
    try {
      // Nobody to answer (a pipelined request whose client left while it waited): not even an error is made.
      // Inside the request's span: the engine calls it makes (a run started, a signal sent) join its trace.
      const answer = () => cors?.preflight(request) ?? dispatch(request, path, shownPath, search, state, context);
      response = clientGone(request) ? errorResponse(CLIENT_CLOSED) : await (span ? span.run(answer) : answer());
    } catch (error) {
      if (error instanceof FlowgateError && error.runId !== undefined) state.runId ??= error.runId;
      const answer = answerError(error);
      if (answer.serverFault) context.logFailure(error, answer.status);
      if (mount) answer.body.message = prefixPathsInMessage(answer.body.message, mount);
      response = errorResponse(answer);
      if (state.allow) response.headers['allow'] = state.allow.join(', ');
    }
    // A client gone before its answer was ready gets none: whatever failed on the way (its body cut short, mostly).
    const aborted = clientGone(request);
    if (aborted && typeof response.body === 'string' && response.status !== 499) response = errorResponse(CLIENT_CLOSED);

    const headers = response.headers;
    headers['x-request-id'] = requestId;
    headers['x-content-type-options'] = 'nosniff';
    headers['cache-control'] ??= 'no-store';
    cors?.addResponseHeaders(request, headers);
    if (state.route?.deprecated) Object.assign(headers, deprecationHeaders(state.route, state));
    if (mount) prefixHandedOutPaths(headers, mount);
    await compression?.encode(response, request.headers['accept-encoding'], request.method === 'HEAD');
    if (request.method === 'HEAD') await withoutBody(response);

    const logAccess = (streamCut: boolean) => {
      span?.end(requestSpanEnd(request.method, state.route, response.status));
      const milliseconds = performance.now() - startedAt;
      metrics?.requestFinished(routeLabel(state.route, ui?.serves(path) === true), request.method, response.status, milliseconds / 1000);
      logger.info('http request', {
        method: request.method,
        path: shownPath,
        status: response.status,
        durationMs: Math.round(milliseconds * 10) / 10,
        // The request scope's fields, written out: a child logger for one line would cost more than the line.
        ...requestScope(requestId, state, span?.traceId),
        ...(state.key ? { key: state.key.id } : {}),
        ...(aborted || streamCut ? { aborted: true } : {}),
      });
    };
    if (isStreamedBody(response.body)) {
      // A stream's duration is the stream's: log when it ends, however it ends (a client that leaves cuts it).
      response.body = afterLast(response.body, () => logAccess(clientGone(request)));
    } else {
      logAccess(false);
    }
    return response;
  }

  function refusal(error: unknown, target: { method?: string | undefined; url?: string | undefined } = {}): HttpResponse {
    const requestId = config.ids.uuid();
    const answer = answerError(error);
    const response = errorResponse(answer);
    Object.assign(response.headers, { 'x-request-id': requestId, 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
    // As every other JSON answer says it (docs/api.md, Compression), though a refusal is too small to be compressed.
    if (compression) response.headers['vary'] = 'Accept-Encoding';
    const known = error instanceof FlowgateError ? error.name : 'InternalError';
    metrics?.requestFinished(UNMATCHED_ROUTE, target.method ?? 'other', answer.status, 0);
    logger.info('http request', {
      ...(target.method === undefined ? {} : { method: target.method }),
      ...(target.url === undefined ? {} : { path: splitTarget(target.url).path }),
      status: answer.status,
      requestId,
      refused: known,
    });
    return response;
  }

  async function dispatch(
    request: HttpRequest,
    path: string,
    shownPath: string,
    search: string,
    state: RequestState,
    context: RequestContext,
  ): Promise<HttpResponse> {
    // The browser UI's files are public and answered from memory (ui.ts); with `ui: false` /ui is an unknown path.
    if (ui?.serves(path)) {
      if (UI_METHODS.includes(request.method)) return ui.answer(path, request.headers);
      state.allow = UI_METHODS;
      throw new MethodNotAllowedError(`${request.method} is not allowed here; allowed: ${UI_METHODS.join(', ')}.`);
    }
    // RFC 9110 9.3.2: HEAD is GET without the body, wherever GET is.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    let match: RouteMatch<Route>;
    try {
      match = router.match(method, path);
    } catch (error) {
      // Malformed percent-encoding: only an authenticated caller learns that the path was the problem.
      if (authenticator.enabled && !authenticator.authenticate(request.headers['authorization'])) throw unauthorized();
      throw error;
    }
    // Set before authenticating: a deprecated path's 401 and 405 carry its deprecation headers too.
    if (match.kind === 'found') state.route = match.route;
    if (match.kind === 'method-not-allowed') state.route = deprecatedRouteAt(path, match.allow);
    const allow = match.kind === 'method-not-allowed' ? withHead(match.allow) : undefined;
    const isPublic = match.kind === 'found' && match.route.public;
    // Before auth and the engine: refusing must stay cheaper than serving. Probes still get their answer.
    if (request.overCapacity && !isPublic) throw new ServerBusyError('Too many open connections; retry shortly.');
    // Checked before 404/405 so that unauthenticated callers learn nothing about which paths exist.
    if (!isPublic && authenticator.enabled) {
      const key = authenticator.authenticate(request.headers['authorization']);
      if (!key) throw unauthorized();
      state.key = key;
    }
    if (match.kind === 'not-found') throw new NotFoundError(`No endpoint at ${shownPath}.`);
    if (match.kind === 'method-not-allowed') {
      state.allow = allow!;
      throw new MethodNotAllowedError(`${request.method} is not allowed here; allowed: ${state.allow.join(', ')}.`);
    }
    const { route } = match;
    state.route = route;
    // Before the body is read and the engine asked: a key without the scope costs nothing more.
    if (state.key) {
      if (route.scope !== 'any') requireScope(state.key, route.scope!, `${route.method} ${route.path}`);
      context.actFor(state.key);
    }
    if (route.deprecated && !config.deprecatedEndpoints) {
      throw new GoneError(`${route.method} ${route.path} has been removed; use ${route.method} ${route.deprecated.successor}.`);
    }
    const params = parseRequestPart(route.params, match.params, 'path') as Record<string, unknown>;
    if (typeof params.id === 'string') state.workflowId = params.id;
    if (typeof params.rid === 'string') state.runId = params.rid;
    const query = parseRequestPart(route.query, queryObject(search), 'query');
    let body: unknown;
    if (route.body) {
      const raw = await readJsonBody(request, { maxBytes: config.maxBodyBytes, maxDepth: config.maxJsonDepth, optional: route.body.optional });
      body = parseRequestPart(route.body.schema, raw === EMPTY_BODY ? {} : raw, 'body');
    }
    const result = await route.handle(new RouteInputOf(params, query, body, request), context);
    // The use case may have taken long (a trace read, a history page): nobody is left to build the answer for.
    if (clientGone(request)) throw clientClosed();
    return toResponse(route, result, state, config, request.method === 'HEAD');
  }

  /** The deprecated route among those the path has under other methods (405 answers only: not a hot path). */
  function deprecatedRouteAt(path: string, allow: readonly string[]): Route | undefined {
    for (const method of allow) {
      const other = router.match(method, path);
      if (other.kind === 'found' && other.route.deprecated) return other.route;
    }
    return undefined;
  }

  const servedDocument = config.basePath === undefined ? openApiDocument : { ...openApiDocument, servers: [{ url: config.basePath }] };
  return { handle, routes, openApiDocument: servedDocument, logger, refusal };
}

/** What every request's context shares: made once per app. */
interface SharedContext {
  config: ResolvedHttpAppOptions;
  logger: Logger;
  eventStreams: EventStreamSlots;
  openApiSerialized: (mount: string | undefined) => SerializedDocument;
}

/*
 * The route context and the route input are classes, not object literals: a getter in a literal is a new accessor
 * pair, and so a new hidden class, for every request. That hidden class lives in the old generation and holds the
 * getter's closure, so the request's whole scope (its response, headers, request id) outlived young-generation
 * collections: a fifth of what a status request allocated was copied and promoted, and scavenges cost 10-13 µs per
 * request under load (docs/performance.md, figure 1b).
 */

/** The RouteContext of one request. */
class RequestContext implements RouteContext {
  api: FlowgateApi;
  key: AccessKey | undefined;
  readonly options: ResolvedHttpAppOptions;
  readonly eventStreams: EventStreamSlots;
  readonly metrics: ExposedMetrics | undefined;
  readonly traceId: string | undefined;
  /** Made on first use (most requests log nothing but their access line), with what the request knows by then. */
  private requestLogger: Logger | undefined;

  constructor(
    private readonly shared: SharedContext,
    private readonly request: HttpRequest,
    readonly requestId: string,
    private readonly state: RequestState,
    span: TraceSpan | undefined,
    private readonly shownPath: string,
    private readonly mount: string | undefined,
  ) {
    this.api = shared.config.api;
    this.key = undefined;
    this.options = shared.config;
    this.eventStreams = shared.eventStreams;
    this.metrics = shared.config.metrics;
    this.traceId = span?.traceId;
  }

  /** The use cases from now on act for the key: its catalog and workflow limits apply. */
  actFor(key: AccessKey): void {
    this.key = key;
    this.api = this.api.forKey(key);
  }

  get logger(): Logger {
    return (this.requestLogger ??= childLogger(this.shared.logger, requestScope(this.requestId, this.state, this.traceId)));
  }

  /** Only GET /openapi.json reads it: no other request pays for serializing the document for a new mount. */
  get openApiDocument(): SerializedDocument {
    return this.shared.openApiSerialized(this.mount);
  }

  describeStreamFailure(error: unknown): { error: string; message: string } {
    const answer = answerError(error);
    if (answer.serverFault) this.logFailure(error, answer.status);
    return { error: answer.body.error, message: answer.body.message };
  }

  logFailure(error: unknown, status: number): void {
    // A client that hung up mid-request is not a server fault worth an alert, and got no answer: the line says 499 as
    // its access line does, and what failed once it had gone.
    if (clientGone(this.request)) {
      this.logger.warn('request failed after its client went away', { method: this.request.method, path: this.shownPath, status: CLIENT_CLOSED.status, aborted: true, error: causeChain(error) });
      return;
    }
    this.logger.error('request failed', { method: this.request.method, path: this.shownPath, status, error: causeChain(error) });
  }
}

/**
 * A route's input. The disconnect signal is a getter: most handlers never look at it, and a transport may make it only
 * when asked (node.ts).
 */
class RouteInputOf implements RouteInput<unknown, unknown, unknown> {
  readonly headers: HttpRequest['headers'];
  readonly #request: HttpRequest;

  constructor(
    readonly params: unknown,
    readonly query: unknown,
    readonly body: unknown,
    request: HttpRequest,
  ) {
    this.headers = request.headers;
    this.#request = request;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }
}

function toResponse(route: Route, result: RouteResult, state: RequestState, config: ResolvedHttpAppOptions, head: boolean): HttpResponse {
  switch (result.kind) {
    case 'event-stream':
      return { status: 200, headers: { ...result.headers }, body: result.body };
    case 'not-modified':
      return { status: 304, headers: { ...result.headers }, body: null };
    case 'no-content':
      return { status: 204, headers: {}, body: null };
    case 'serialized-json':
      return { status: result.status, headers: { 'content-type': JSON_CONTENT_TYPE, ...result.headers }, body: result.body };
    case 'text':
      // Whole even for HEAD: withoutBody announces its length, as GET's.
      return { status: result.status, headers: { 'content-type': result.contentType }, body: result.body };
    case 'json': {
      if (result.runId !== undefined) state.runId = result.runId;
      if (config.validateResponses) assertDocumentedResponse(route, result.status, result.body);
      const headers = { 'content-type': JSON_CONTENT_TYPE, ...result.headers };
      return { status: result.status, headers, body: jsonBody(result.body, head) };
    }
  }
}

/** validateResponses: a body that does not match the published schema is a server bug; fail loudly. */
function assertDocumentedResponse(route: Route, status: number, body: unknown): void {
  const schema = route.responses[status]?.schema;
  const outcome = schema?.safeParse(body);
  if (outcome === undefined || !outcome.success) {
    const detail = outcome ? outcome.error.message : `status ${status} is not documented`;
    throw new Error(`Response of ${route.method} ${route.path} breaks its documented schema: ${detail}`);
  }
}

/** docs/api.md: on every response of a deprecated endpoint, errors included. */
function deprecationHeaders(route: Route, state: RequestState): Record<string, string> {
  const deprecation = route.deprecated!;
  const successor =
    state.workflowId !== undefined && state.runId !== undefined
      ? deprecation.successor
          .replace('{id}', idPathSegment(state.workflowId))
          .replace('{rid}', idPathSegment(state.runId))
      : deprecation.successor;
  return { deprecation: DEPRECATION_HEADER, sunset: deprecation.sunset, link: `<${successor}>; rel="successor-version"` };
}

/**
 * The path to route and the prefix the API is mounted under for this request: the framework's (Express's baseUrl)
 * when it stripped one, else the configured base path, removed here when the request still carries it.
 */
function mountedPath(path: string, frameworkBase: string | undefined, basePath: string | undefined): { path: string; mount: string | undefined } {
  if (frameworkBase) return { path, mount: frameworkBase };
  if (!basePath) return { path, mount: undefined };
  if (path === basePath) return { path: '/', mount: basePath };
  if (path.startsWith(`${basePath}/`)) return { path: path.slice(basePath.length), mount: basePath };
  return { path, mount: basePath };
}

/** How many mount prefixes' documents are kept serialized (a mount is configured or one of a framework's few). */
const OPEN_API_MOUNTS_KEPT = 16;

/**
 * The document serialized once per mount prefix, with the entity tag of those bytes: its `servers` URL is the prefix
 * the document was asked under (a relative URL, so a client resolves it against wherever it fetched the document: the
 * API behind any host or proxy).
 */
function openApiDocumentByMount(document: OpenApiDocument): (mount: string | undefined) => SerializedDocument {
  const serialized = new Map<string, SerializedDocument>();
  return (mount) => {
    const url = mount ?? '/';
    let entry = serialized.get(url);
    if (entry === undefined) {
      const json = JSON.stringify(url === '/' ? document : { ...document, servers: [{ url }] });
      entry = { json, etag: etagOf(json) };
      if (serialized.size >= OPEN_API_MOUNTS_KEPT) serialized.delete(serialized.keys().next().value!);
      serialized.set(url, entry);
    }
    return entry;
  };
}

/** Messages name API paths as `/workflow/...` (the 408's result, a 410's successor): behind a prefix, prefixed. */
function prefixPathsInMessage(message: string, mount: string): string {
  return message.replace(/(^|[\s(])\/workflow(?=[/\s.,;)]|$)/g, `$1${mount}/workflow`);
}

/** Behind a mount prefix, the paths the API hands out are the ones a client can follow: the prefixed ones. */
function prefixHandedOutPaths(headers: Record<string, string>, basePath: string): void {
  const location = headers['location'];
  if (location?.startsWith('/')) headers['location'] = `${basePath}${location}`;
  const link = headers['link'];
  if (link?.startsWith('</')) headers['link'] = `<${basePath}${link.slice(1)}`;
}

/**
 * The fields of every line a request logs: its id, the workflow and run it names when known, and (once requests are
 * traced) `traceId`.
 */
function requestScope(requestId: string, state: RequestState, traceId: string | undefined): Record<string, string> {
  const scope: Record<string, string> = { requestId };
  if (traceId !== undefined) scope.traceId = traceId;
  if (state.workflowId !== undefined) scope.workflowId = state.workflowId;
  if (state.runId !== undefined) scope.runId = state.runId;
  return scope;
}

/** The metrics' label of a request: its route's template, never its path (ids would make the label set unbounded). */
const UNMATCHED_ROUTE = 'unmatched';
function routeLabel(route: Route | undefined, ui: boolean): string {
  if (route) return route.path;
  return ui ? '/ui' : UNMATCHED_ROUTE;
}

function acceptedRequestId(value: string | undefined): string | undefined {
  return value !== undefined && VALID_REQUEST_ID.test(value) ? value : undefined;
}

/** The server span of a request (tracing on), child of its `traceparent` header when that is valid. */
function requestSpan(tracing: Tracing, request: HttpRequest, requestId: string): TraceSpan | undefined {
  if (!tracing.enabled) return undefined;
  const attributes = { 'http.request.method': request.method, 'flowgate.request_id': requestId };
  return tracing.startSpan(request.method, { kind: 'server', parent: firstHeader(request.headers, 'traceparent'), attributes });
}

/** Named after the route template (`POST /workflow/run`), never the path: ids would make every span name unique. */
function requestSpanEnd(method: string, route: Route | undefined, status: number): Parameters<TraceSpan['end']>[0] {
  return {
    name: route ? `${method} ${route.path}` : method,
    attributes: { 'http.response.status_code': status, ...(route ? { 'http.route': route.path } : {}) },
    ...(status >= 500 ? { error: `HTTP ${status}` } : {}),
  };
}

function errorResponse(answer: ReturnType<typeof answerError>): HttpResponse {
  return { status: answer.status, headers: { 'content-type': JSON_CONTENT_TYPE, ...answer.headers }, body: JSON.stringify(answer.body) };
}

function clientClosed(): InstanceType<typeof ClientClosedRequestError> {
  return new ClientClosedRequestError('The client closed the connection before its answer was ready.');
}

/** Made once: thousands of pipelined requests can find their client gone at once, and an Error costs a stack trace. */
const CLIENT_CLOSED = answerError(clientClosed());

/** Whether the client has gone: the transport's cheap answer when it has one (node.ts), else the request's signal. */
function clientGone(request: HttpRequest): boolean {
  return request.clientGone ?? request.signal.aborted;
}

/** `Allow` lists HEAD wherever GET is allowed. */
function withHead(allow: readonly string[]): readonly string[] {
  return allow.includes('GET') && !allow.includes('HEAD') ? [...allow, 'HEAD'].sort() : allow;
}
