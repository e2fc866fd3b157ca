/**
 * The transport-neutral request and response of the HTTP app. node.ts and fetch.ts translate to and from these,
 * so everything between (routing, auth, validation, errors, SSE) is written and tested once.
 */

/** Header values as node:http delivers them; names are lower-case. */
export type HeaderValue = string | readonly string[] | undefined;
export type RequestHeaders = Readonly<Record<string, HeaderValue>>;

export interface HttpRequest {
  method: string;
  /** Origin-form (`/workflow/list?catalog=main`) or absolute (`http://host/workflow/list`). */
  url: string;
  /** Lower-case header names. */
  headers: RequestHeaders;
  /** `null` when the transport knows there is no body. */
  body: AsyncIterable<Uint8Array> | null;
  /** Aborted when the client goes away; ends server-sent event streams. */
  signal: AbortSignal;
  /**
   * Whether the client has gone, for transports that can tell without making `signal` (node.ts: making it costs a
   * plain exchange a tenth of its throughput). Absent: `signal.aborted` is asked. An answer nobody waits for is not
   * built; the access log records it as aborted (499).
   */
  readonly clientGone?: boolean;
  /**
   * Set by a transport for a connection beyond its connection cap: every endpoint but the public ones (health,
   * readiness, the document) answers 503 `ServerBusyError`, and the transport closes the connection after.
   */
  overCapacity?: boolean;
  /**
   * The path the API is mounted under (Express's `req.baseUrl` for `app.use('/api', handler)`): the paths it hands
   * out in `Location` and `Link` start with it, so a client can follow them as they are.
   */
  basePath?: string;
}

export interface HttpResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /**
   * A string (or bytes: a compressed answer) is sent whole; an async iterable is streamed chunk by chunk, each pulled
   * once the last one is taken (server-sent events, large JSON answers). `null` with a `content-length` header: the
   * answer to HEAD; `null` on a 204: no content.
   */
  body: WholeBody | AsyncIterable<string | Uint8Array> | null;
}

/** A body sent at once, with its length. */
export type WholeBody = string | Uint8Array;

/** Whether a body is streamed (not whole, not absent). */
export function isStreamedBody(body: HttpResponse['body']): body is AsyncIterable<string | Uint8Array> {
  return body !== null && typeof body !== 'string' && !(body instanceof Uint8Array);
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;

/** The first value of a header; repeated headers other than the few HTTP allows to combine are unusual. */
export function firstHeader(headers: RequestHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value[0];
}
