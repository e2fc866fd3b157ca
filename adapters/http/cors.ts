import { firstHeader, type HttpRequest, type HttpResponse, type RequestHeaders } from './types.js';

/*
 * Cross-origin requests from browsers (CORS_ORIGINS, docs/api.md), as the Fetch standard's CORS protocol has them:
 * a preflight from a listed origin is answered here, before authentication and routing (a browser never sends
 * credentials with one); every other answer to a listed origin says it may be read and which headers a script may
 * see. An origin that is not listed gets no CORS header at all, and its browser keeps the answer from the page.
 */

/** The request headers the API reads; the CORS-safelisted ones (Accept, ...) need no mention. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, If-None-Match, X-Request-Id, traceparent, tracestate';
/** The response headers a script needs beyond the safelisted ones (Content-Type, Content-Length, ...). */
const EXPOSED_HEADERS = 'Location, Retry-After, X-Request-Id, Idempotency-Expires, Deprecation, Sunset, Link, ETag';
/** Seconds a browser may reuse a preflight's answer: Chromium's own cap. */
const PREFLIGHT_MAX_AGE = '7200';

const ANY_ORIGIN = '*';

/** The allowed origins of an app: a list, or `*` alone for any origin (then never with credentials). */
export class CorsPolicy {
  private readonly anyOrigin: boolean;
  private readonly origins: ReadonlySet<string>;
  private readonly allowedMethods: string;

  /**
   * `origins` as {@link corsOriginProblems} accepts them, not empty; `routeMethods`, the methods of the app's routes
   * (the route table's, so a new route's method is never left out of a preflight's answer).
   */
  constructor(origins: readonly string[], routeMethods: Iterable<string>) {
    this.anyOrigin = origins.includes(ANY_ORIGIN);
    this.origins = new Set(origins);
    const methods = new Set(routeMethods);
    // HEAD is GET without the body, wherever GET is (app.ts).
    if (methods.has('GET')) methods.add('HEAD');
    this.allowedMethods = [...methods].join(', ');
  }

  /** The 204 answer to a preflight from an allowed origin; undefined for any other request (routed as usual). */
  preflight(request: HttpRequest): HttpResponse | undefined {
    const allowed = this.answeredPreflight(request);
    if (!allowed) return undefined;
    return {
      status: 204,
      headers: {
        ...allowed,
        ...(this.anyOrigin ? {} : { vary: 'Origin' }),
        'access-control-allow-methods': this.allowedMethods,
        'access-control-allow-headers': ALLOWED_HEADERS,
        'access-control-max-age': PREFLIGHT_MAX_AGE,
      },
      body: null,
    };
  }

  /** The CORS headers of an answer; a preflight's answer has its own already. */
  addResponseHeaders(request: HttpRequest, responseHeaders: Record<string, string>): void {
    // Listed origins make the answer depend on Origin, whatever this request's: a cache must not hand an answer without
    // Access-Control-Allow-Origin to a listed origin, nor one origin's to another.
    if (!this.anyOrigin) appendVary(responseHeaders, 'Origin');
    const allowed = this.allowedOrigin(request.headers);
    if (!allowed || this.answeredPreflight(request)) return;
    Object.assign(responseHeaders, allowed, { 'access-control-expose-headers': EXPOSED_HEADERS });
  }

  /** The origin headers of a preflight this policy answers (an allowed origin's); undefined for any other request. */
  private answeredPreflight(request: HttpRequest): Record<string, string> | undefined {
    if (request.method !== 'OPTIONS' || firstHeader(request.headers, 'access-control-request-method') === undefined) return undefined;
    return this.allowedOrigin(request.headers);
  }

  private allowedOrigin(headers: RequestHeaders): Record<string, string> | undefined {
    const origin = firstHeader(headers, 'origin');
    if (origin === undefined) return undefined;
    if (this.anyOrigin) return { 'access-control-allow-origin': ANY_ORIGIN };
    if (!this.origins.has(origin)) return undefined;
    // A listed origin is trusted by name: its pages may send credentials (a proxy's cookies in front of the API).
    return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true' };
  }
}

/**
 * What is wrong with a list of allowed origins, one line each; empty when nothing is. An origin is written as
 * browsers send it in `Origin`: `scheme://host[:port]`, lower case, no default port, no path. `*` stands alone.
 */
export function corsOriginProblems(origins: readonly string[]): string[] {
  const problems: string[] = [];
  if (origins.includes(ANY_ORIGIN) && origins.length > 1) problems.push('`*` stands alone: it allows every origin, so listing others beside it is a mistake');
  for (const origin of origins) {
    if (origin === ANY_ORIGIN) continue;
    const problem = originProblem(origin);
    if (problem) problems.push(problem);
  }
  return problems;
}

function originProblem(value: string): string | undefined {
  if (value === 'null') return '"null" is the origin of sandboxed frames and local files, which any page can claim: it cannot be allowed';
  const shape = `${JSON.stringify(value)} is not an origin (scheme://host[:port])`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return shape;
  }
  // http(s) origins are what URL serializes; other schemes (a browser extension's) have none, and are taken as written.
  if (url.origin === 'null') return /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s@]+$/.test(value) ? undefined : shape;
  return url.origin === value ? undefined : `${JSON.stringify(value)} is not an origin; write ${url.origin}`;
}

/** Adds a field name to `Vary`, keeping what other parts of the answer already vary on. */
export function appendVary(headers: Record<string, string>, field: string): void {
  headers['vary'] = varyWith(headers['vary'], field);
}

function varyWith(vary: string | undefined, field: string): string {
  if (vary === undefined || vary === '') return field;
  const fields = vary.split(',').map((name) => name.trim().toLowerCase());
  return fields.includes(field.toLowerCase()) || fields.includes('*') ? vary : `${vary}, ${field}`;
}
