import { defineError } from '../../core/domain/errors.js';

/*
 * Errors only HTTP itself can cause: refusals of bytes that never became a request the app could route (made by
 * node:http's parser, answered by node.ts), and a client that left. They live in the HTTP adapter, not in the core's
 * domain errors; their statuses are in the one table (errors.ts) like every other name.
 */

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
