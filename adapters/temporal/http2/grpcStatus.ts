// The gRPC wire rules the HTTP/2 transport (grpcChannel.ts) follows, as pure functions: the deadline header, the
// status of an answer, its message, and the error a failed call rejects with. The error has the shape of grpc-js's
// ServiceError (code, details, metadata), which the Temporal client and flowgate's error translation recognise.
import { Metadata, status as GrpcStatus } from '@grpc/grpc-js';
import type { IncomingHttpHeaders } from 'node:http2';

/** A call that ended with a non-OK gRPC status: what grpc-js rejects with, so every reader of its errors reads these. */
export class GrpcCallError extends Error {
  constructor(
    readonly code: GrpcStatus,
    readonly details: string,
    readonly metadata: Metadata = new Metadata(),
  ) {
    super(`${code} ${GrpcStatus[code] ?? 'UNKNOWN'}: ${details}`);
    this.name = 'GrpcCallError';
  }
}

const MAX_TIMEOUT_DIGITS = 99_999_999;

/**
 * The `grpc-timeout` header for a call with `ms` left: at most eight digits and a unit, milliseconds while they fit,
 * whole seconds (rounded up) beyond.
 */
export function grpcTimeoutHeader(ms: number): string {
  const millis = Math.max(1, Math.ceil(ms));
  if (millis <= MAX_TIMEOUT_DIGITS) return `${millis}m`;
  const seconds = Math.ceil(millis / 1000);
  if (seconds <= MAX_TIMEOUT_DIGITS) return `${seconds}S`;
  return `${Math.min(MAX_TIMEOUT_DIGITS, Math.ceil(seconds / 3600))}H`;
}

/** The status of an answer that carries no `grpc-status`, from its HTTP status (gRPC's HTTP-to-gRPC mapping). */
export function statusOfHttpStatus(httpStatus: number): GrpcStatus {
  switch (httpStatus) {
    case 400:
      return GrpcStatus.INTERNAL;
    case 401:
      return GrpcStatus.UNAUTHENTICATED;
    case 403:
      return GrpcStatus.PERMISSION_DENIED;
    case 404:
      return GrpcStatus.UNIMPLEMENTED;
    case 429:
    case 502:
    case 503:
    case 504:
      return GrpcStatus.UNAVAILABLE;
    default:
      return GrpcStatus.UNKNOWN;
  }
}

/** `grpc-message` is percent-encoded UTF-8; a malformed one is shown as it came. */
export function decodeGrpcMessage(value: string | string[] | undefined): string {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The error of an answer whose `grpc-status` is not OK: its message and every other trailer as metadata (binary
 * trailers such as `grpc-status-details-bin` decoded, as grpc-js gives them).
 */
export function errorOfTrailers(trailers: IncomingHttpHeaders): GrpcCallError {
  const code = statusCodeOf(trailers['grpc-status']);
  const metadata = Metadata.fromHttp2Headers(trailers);
  metadata.remove('grpc-status');
  metadata.remove('grpc-message');
  return new GrpcCallError(code, decodeGrpcMessage(trailers['grpc-message']), metadata);
}

/** The numeric status of a `grpc-status` value; UNKNOWN for anything that is not one. */
export function statusCodeOf(value: string | string[] | undefined): GrpcStatus {
  const text = Array.isArray(value) ? value[0] : value;
  if (text === undefined || !/^\d{1,2}$/.test(text)) return GrpcStatus.UNKNOWN;
  const code = Number(text);
  return code <= GrpcStatus.UNAUTHENTICATED ? code : GrpcStatus.UNKNOWN;
}

/** The status of a stream the server reset before it answered, as grpc-js reports it. */
export function errorOfReset(rstCode: number): GrpcCallError {
  switch (rstCode) {
    case 7: // REFUSED_STREAM: never processed by the server
      return new GrpcCallError(GrpcStatus.UNAVAILABLE, 'Stream refused by server');
    case 8: // CANCEL
      return new GrpcCallError(GrpcStatus.CANCELLED, 'Call cancelled');
    case 11: // ENHANCE_YOUR_CALM
      return new GrpcCallError(GrpcStatus.RESOURCE_EXHAUSTED, 'Bandwidth exhausted or memory limit exceeded');
    case 12: // INADEQUATE_SECURITY
      return new GrpcCallError(GrpcStatus.PERMISSION_DENIED, 'Protocol not secure enough');
    default:
      return new GrpcCallError(GrpcStatus.INTERNAL, `Received RST_STREAM with code ${rstCode}`);
  }
}

/**
 * The one message of a unary answer from its length-prefixed frame (a flag byte, four bytes of length), or the error
 * that says why there is none.
 */
export function messageOfFrame(body: Buffer): Buffer | GrpcCallError {
  // No message at all is UNIMPLEMENTED, as grpc-js reports it (the SDK's connect check reads it as an older server).
  if (body.length === 0) return new GrpcCallError(GrpcStatus.UNIMPLEMENTED, 'No message received');
  if (body.length < 5) return new GrpcCallError(GrpcStatus.INTERNAL, 'Truncated message frame');
  if (body[0] !== 0) return new GrpcCallError(GrpcStatus.INTERNAL, 'Compressed message received, but no compression was asked for');
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) {
    return new GrpcCallError(GrpcStatus.INTERNAL, body.length < 5 + length ? 'Truncated message frame' : 'More than one message received in a unary answer');
  }
  return body.subarray(5);
}

/** The length-prefixed frame of one uncompressed message. */
export function frameOfMessage(message: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(5 + message.length);
  frame[0] = 0;
  frame.writeUInt32BE(message.length, 1);
  frame.set(message, 5);
  return frame;
}
