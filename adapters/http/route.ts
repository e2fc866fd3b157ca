import type { z } from 'zod';
import type { FlowgateApi } from '../../core/api/flowgateApi.js';
import type { Logger } from '../../ports/logger.js';
import type { ResolvedHttpAppOptions } from './options.js';
import { NoParamsSchema, NoQuerySchema } from './schemas/requests.js';
import type { ErrorBodySchema } from './schemas/common.js';
import type { RequestHeaders } from './types.js';
import type { EventStreamSlots } from './eventStreamSlots.js';
import type { ExposedMetrics } from '../../ports/metrics.js';
import type { AccessKey, Scope } from '../../core/domain/access.js';

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** Response headers documented per response in the OpenAPI document (components/headers). */
export type DocumentedHeader = 'Deprecation' | 'Retry-After' | 'Location' | 'Idempotency-Expires' | 'ETag';

/** One documented answer; `S`, its body's schema, also types what the route's handler may answer (AnswerOf). */
export interface ResponseDoc<S extends z.ZodType = z.ZodType> {
  description: string;
  /** A titled schema (see core/api/wire/common.ts); absent for bodies that are not JSON. */
  schema?: S;
  /** Documented alternative: the same endpoint as a server-sent event stream. */
  eventStream?: {
    description: string;
    /** Each named event, in the order a stream sends them: documented as one of the event-stream's schemas. */
    events: Readonly<Record<string, EventDoc>>;
  };
  headers?: readonly DocumentedHeader[];
  /** A plain-text body (the metrics exposition), documented as `text/plain` with this description. */
  text?: string;
}

/** One named server-sent event: what it means, its `data` (one line of JSON) and, when it has one, its `id:`. */
export interface EventDoc {
  description: string;
  data: z.ZodType;
  /** What the event's `id:` holds; absent when the event has none. */
  id?: string;
  /** The `id:` is sent only in the case `id` describes, not with every such event. */
  idOnlySometimes?: boolean;
}

export interface RequestHeaderDoc {
  name: string;
  description: string;
  /** The value's schema, when the handler validates it with one (else documented as any string). */
  schema?: z.ZodType;
}

export interface DeprecationDoc {
  /** The run-pinned replacement, as a template: `/workflow/{id}/runs/{rid}/stop`. */
  successor: string;
  /** HTTP-date after which the endpoint may be removed. */
  sunset: string;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  headers: RequestHeaders;
  /** Aborted when the client disconnects. */
  signal: AbortSignal;
}

export interface RouteContext {
  /** The use cases, acting for the request's API key when authentication is on (its limits apply). */
  api: FlowgateApi;
  /** The API key the request authenticated with; undefined when authentication is off. */
  key: AccessKey | undefined;
  logger: Logger;
  options: ResolvedHttpAppOptions;
  requestId: string;
  /** The trace of the request's span, when tracing is on: for log lines that name it. */
  traceId?: string;
  /** The serialized OpenAPI document and its entity tag (once per mount prefix, when first asked for). */
  openApiDocument: SerializedDocument;
  /** The cap on open server-sent event streams. */
  eventStreams: EventStreamSlots;
  /** What GET /metrics exposes; undefined when the app was given none (the route answers 404). */
  metrics: ExposedMetrics | undefined;
  /** Body of the final SSE `error` event for a failure after streaming started; logs 5xx like any error. */
  describeStreamFailure(error: unknown): { error: string; message: string };
}

/** A document served as it was serialized, with the strong entity tag of those bytes. */
export interface SerializedDocument {
  json: string;
  etag: string;
}

/** What a handler answers; `Body`, the JSON body's type, is checked against the route's schemas (AnswerOf). */
export type RouteResult<Body = unknown> =
  | {
      kind: 'json';
      status: number;
      body: Body;
      headers?: Record<string, string>;
      /** The run the operation acted on, when known: fills the `Link` of deprecated endpoints. */
      runId?: string;
    }
  | { kind: 'serialized-json'; status: number; body: string; headers?: Record<string, string> }
  | { kind: 'text'; status: number; body: string; contentType: string }
  /** 304: the client's copy (`If-None-Match`) is current; the headers are those a 200 would carry, no body. */
  | { kind: 'not-modified'; headers: Record<string, string> }
  | { kind: 'event-stream'; body: AsyncIterable<string>; headers?: Record<string, string> }
  /** 204: nothing to send (a resumed event stream of a closed run whose client has every event). */
  | { kind: 'no-content' };

export interface BodySpec<B extends z.ZodType> {
  schema: B;
  /** An empty body is accepted and validated as `{}`. */
  optional?: boolean;
}

/** The scope a route needs, or `any` for a route every valid key may call. */
export type RouteScope = Scope | 'any';

/** The documented answers of a route, by status. */
export type ResponseDocs = Readonly<Record<number, ResponseDoc>>;

/**
 * The JSON bodies a route's handler may answer: what the schemas of its documented answers produce (`z.output`, as
 * the document renders answers). Error answers are thrown, never returned (errors.ts), so the error body adds nothing;
 * nor does a doc whose schema's type was widened to any schema, which would let every body through.
 */
export type AnswerOf<R extends ResponseDocs> = { [K in keyof R]: R[K] extends { schema?: infer S } ? BodyOf<S> : never }[keyof R];
type BodyOf<S> = S extends z.ZodType ? (z.ZodType extends S ? never : S extends typeof ErrorBodySchema ? never : z.output<S>) : never;

export interface RouteSpec<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType, R extends ResponseDocs> {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  /** No bearer token needed (readiness, liveness, the API description). */
  public?: boolean;
  /**
   * The scope an API key needs (docs/security.md). @default `read` for GET; every other method must name one, so a
   * new endpoint that changes something is never open to a read-only key by omission. `any`: a valid key of any
   * scope (a key asking what it may do).
   */
  scope?: RouteScope;
  deprecated?: DeprecationDoc;
  params?: P;
  query?: Q;
  body?: BodySpec<B>;
  /** Request headers the operation reads, for the document. */
  requestHeaders?: readonly RequestHeaderDoc[];
  /**
   * Every status this operation answers itself; transport-level errors are added by the document generator. Their
   * schemas type the handler's answer: a body of another shape does not compile.
   */
  responses: R;
  handle(input: RouteInput<z.output<P>, z.output<Q>, z.output<B>>, context: RouteContext): Promise<RouteResult<AnswerOf<R>>>;
}

/** A route with its types erased, as the router, the app and the document generator see it. */
export interface Route {
  method: HttpMethod;
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly string[];
  public: boolean;
  /** What a key needs; undefined for a public route. */
  scope: RouteScope | undefined;
  deprecated?: DeprecationDoc;
  params: z.ZodType;
  query: z.ZodType;
  body?: { schema: z.ZodType; optional: boolean };
  requestHeaders: readonly RequestHeaderDoc[];
  responses: ResponseDocs;
  handle(input: RouteInput<unknown, unknown, unknown>, context: RouteContext): Promise<RouteResult>;
}

/**
 * Infers the handler's input types from the route's own request schemas, and its answer's from the response
 * schemas. The erasure below is sound because the app only ever calls `handle` with values those same schemas
 * produced.
 */
export function defineRoute<
  P extends z.ZodType = typeof NoParamsSchema,
  Q extends z.ZodType = typeof NoQuerySchema,
  B extends z.ZodType = z.ZodUndefined,
  R extends ResponseDocs = ResponseDocs,
>(spec: RouteSpec<P, Q, B, R>): Route {
  const isPublic = spec.public ?? false;
  if (!isPublic && spec.scope === undefined && spec.method !== 'GET') {
    throw new TypeError(`${spec.method} ${spec.path}: a route that is not a GET names the scope it needs`);
  }
  return {
    ...spec,
    public: isPublic,
    scope: isPublic ? undefined : (spec.scope ?? 'read'),
    params: spec.params ?? NoParamsSchema,
    query: spec.query ?? NoQuerySchema,
    body: spec.body && { schema: spec.body.schema, optional: spec.body.optional ?? false },
    requestHeaders: spec.requestHeaders ?? [],
    handle: spec.handle as Route['handle'],
  };
}

/** A 200 JSON result. */
export function ok<Body>(body: Body, extra: { headers?: Record<string, string>; runId?: string } = {}): RouteResult<Body> {
  return { kind: 'json', status: 200, body, ...extra };
}
