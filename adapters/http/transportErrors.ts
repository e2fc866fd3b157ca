import { defineError } from '../../core/domain/errors.js';

/*
 * Errors only the HTTP adapter throws: what a request itself gets wrong before any use case runs (its token, path,
 * method, media type), the server's own overload refusals, refusals of bytes that never became a request the app
 * could route (made by node:http's parser, answered by node.ts), and a client that left. They live here, not in the
 * core's domain errors; their statuses are in the one table (errors.ts) like every other name.
 */

/** No bearer token, or not the configured one: 401 with `WWW-Authenticate: Bearer`. */
export const UnauthorizedError = defineError('UnauthorizedError');
/** No route has this path (nor the UI a file): 404. */
export const NotFoundError = defineError('NotFoundError');
/** A route has this path but not this method: 405 with `Allow`. */
export const MethodNotAllowedError = defineError('MethodNotAllowedError');
/** A request body that is not `application/json`: 415. */
export const UnsupportedMediaTypeError = defineError('UnsupportedMediaTypeError');
/** A deprecated endpoint switched off (DEPRECATED_ENDPOINTS=off): 410, pointing at the run-pinned form. */
export const GoneError = defineError('GoneError');
/**
 * An embedding server read the request's body before flowgate's handler got it (a body parser or another middleware
 * mounted ahead of it): 500, a fault of the server's set-up, named so its message says what to change.
 */
export const BodyAlreadyReadError = defineError('BodyAlreadyReadError');
/** Too many open connections or event streams: 503 with Retry-After, the caller should come back shortly. */
export const ServerBusyError = defineError('ServerBusyError');

/** Bytes that are not a valid HTTP/1.1 request (bad framing, a duplicate Content-Length, a garbled request line): 400. */
export const BadRequestError = defineError('BadRequestError');
/** Headers (or the whole request) not received within HEADERS_TIMEOUT_MS (REQUEST_TIMEOUT_MS): 408. */
export const RequestTimeoutError = defineError('RequestTimeoutError');
/** An `Expect` header other than `100-continue`: 417. */
export const ExpectationFailedError = defineError('ExpectationFailedError');
/** The request line and headers together exceed node's header size limit (16 KiB by default): 431. */
export const RequestHeaderFieldsTooLargeError = defineError('RequestHeaderFieldsTooLargeError');
/**
 * The client closed its connection before its answer was ready: nothing is sent, the answer is not built, and the
 * access log records status 499 with `aborted: true` (nginx's "client closed request").
 */
export const ClientClosedRequestError = defineError('ClientClosedRequestError');
