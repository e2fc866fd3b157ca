import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { status as GrpcStatus } from '@grpc/grpc-js';
import {
  decodeGrpcMessage,
  errorOfReset,
  frameOfMessage,
  grpcTimeoutHeader,
  GrpcCallError,
  messageOfFrame,
  statusCodeOf,
  statusOfHttpStatus,
} from '../../../adapters/temporal/http2/grpcStatus.js';
import { channelOptions, headersOf } from '../../../adapters/temporal/http2/http2Connection.js';

test('grpc-timeout: milliseconds while eight digits hold them, then whole seconds, then hours; never zero', () => {
  assert.is(grpcTimeoutHeader(1500), '1500m');
  assert.is(grpcTimeoutHeader(0.2), '1m');
  assert.is(grpcTimeoutHeader(-5), '1m');
  assert.is(grpcTimeoutHeader(99_999_999), '99999999m');
  assert.is(grpcTimeoutHeader(100_000_000), '100000S');
  assert.is(grpcTimeoutHeader(100_000_000_001), '27778H');
});

test('an answer without grpc-status takes its status from the HTTP status', () => {
  assert.is(statusOfHttpStatus(400), GrpcStatus.INTERNAL);
  assert.is(statusOfHttpStatus(401), GrpcStatus.UNAUTHENTICATED);
  assert.is(statusOfHttpStatus(403), GrpcStatus.PERMISSION_DENIED);
  assert.is(statusOfHttpStatus(404), GrpcStatus.UNIMPLEMENTED);
  for (const unavailable of [429, 502, 503, 504]) assert.is(statusOfHttpStatus(unavailable), GrpcStatus.UNAVAILABLE);
  assert.is(statusOfHttpStatus(500), GrpcStatus.UNKNOWN);
});

test('grpc-status values: the sixteen codes are read, anything else is UNKNOWN', () => {
  assert.is(statusCodeOf('0'), GrpcStatus.OK);
  assert.is(statusCodeOf('16'), GrpcStatus.UNAUTHENTICATED);
  assert.is(statusCodeOf(['5']), GrpcStatus.NOT_FOUND);
  for (const bad of ['17', '-1', 'abc', '', '100', undefined]) assert.is(statusCodeOf(bad), GrpcStatus.UNKNOWN, String(bad));
});

test('grpc-message is percent-decoded; a malformed encoding is shown as it came', () => {
  assert.is(decodeGrpcMessage('plain text'), 'plain text');
  assert.is(decodeGrpcMessage('caf%C3%A9 100%25'), 'café 100%');
  assert.is(decodeGrpcMessage('broken %E0%A4%A'), 'broken %E0%A4%A');
  assert.is(decodeGrpcMessage(undefined), '');
});

test('a reset stream maps to the status grpc-js gives it', () => {
  assert.is(errorOfReset(7).code, GrpcStatus.UNAVAILABLE);
  assert.is(errorOfReset(8).code, GrpcStatus.CANCELLED);
  assert.is(errorOfReset(11).code, GrpcStatus.RESOURCE_EXHAUSTED);
  assert.is(errorOfReset(12).code, GrpcStatus.PERMISSION_DENIED);
  const other = errorOfReset(2);
  assert.is(other.code, GrpcStatus.INTERNAL);
  assert.is(other.details, 'Received RST_STREAM with code 2');
});

test('a message framed and read back is the same bytes; a frame cut short or with a second message is an error', () => {
  const frame = frameOfMessage(Buffer.from('hello'));
  assert.equal([...frame], [0, 0, 0, 0, 5, ...Buffer.from('hello')]);
  assert.is((messageOfFrame(frame) as Buffer).toString(), 'hello');
  assert.is((messageOfFrame(frameOfMessage(new Uint8Array(0))) as Buffer).length, 0);
  const cut = messageOfFrame(frame.subarray(0, 7)) as GrpcCallError;
  assert.instance(cut, GrpcCallError);
  assert.is(cut.details, 'Truncated message frame');
  assert.is((messageOfFrame(Buffer.from([0, 0, 0])) as GrpcCallError).details, 'Truncated message frame');
});

test('the call error has the shape of grpc-js errors: code, details, metadata, and the same message', () => {
  const error = new GrpcCallError(GrpcStatus.NOT_FOUND, 'workflow not found');
  assert.is(error.message, '5 NOT_FOUND: workflow not found');
  assert.is(error.name, 'GrpcCallError');
  assert.equal(error.metadata.getMap(), {});
});

test('metadata as HTTP/2 headers: names in lower case, binary values in base64', () => {
  assert.equal(headersOf({ 'Temporal-Namespace': 'ns', 'trace-bin': Buffer.from([1, 2, 3]), count: 3 }), {
    'temporal-namespace': 'ns',
    'trace-bin': 'AQID',
    count: '3',
  });
});

test('channel options: TLS as the SDK reads tls and apiKey, limits and keepalive from the gRPC channel args', () => {
  assert.is(channelOptions('h:1', {}, {}).tls, undefined);
  assert.equal(channelOptions('h:1', { tls: true }, {}).tls, {});
  assert.equal(channelOptions('h:1', { apiKey: 'k' }, {}).tls, {});
  assert.is(channelOptions('h:1', { apiKey: 'k', tls: false }, {}).tls, undefined);
  const ca = Buffer.from('ca');
  assert.equal(channelOptions('h:1', { tls: { serverRootCACertificate: ca, serverNameOverride: 'temporal.local' } }, {}).tls, { ca, servername: 'temporal.local' });
  const limits = channelOptions('h:1', {}, { 'grpc.max_receive_message_length': 10, 'grpc.max_send_message_length': 20, 'grpc.keepalive_time_ms': 30, 'grpc.keepalive_timeout_ms': 40 });
  assert.equal([limits.maxReceiveBytes, limits.maxSendBytes, limits.keepaliveMs, limits.keepaliveTimeoutMs], [10, 20, 30, 40]);
  const defaults = channelOptions('h:1', {}, {});
  assert.equal([defaults.maxReceiveBytes, defaults.maxSendBytes], [4 * 1024 * 1024, Number.POSITIVE_INFINITY]);
  // -1 is grpc-js's "no limit"; other negative values are not limits at all.
  const unlimited = channelOptions('h:1', {}, { 'grpc.max_receive_message_length': -1, 'grpc.max_send_message_length': -1, 'grpc.keepalive_time_ms': -5 });
  assert.equal([unlimited.maxReceiveBytes, unlimited.maxSendBytes, unlimited.keepaliveMs], [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, 30_000]);
});

test.run();
