import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Metadata, status } from '@grpc/grpc-js';
import {
  Connection,
  NamespaceNotFoundError,
  ServiceError,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError as TemporalNotFoundError,
} from '@temporalio/client';
import { translateError } from '../../../adapters/temporal/engine/grpcErrors.js';
import { FlowgateError, WorkflowClosedError } from '../../../core/domain/errors.js';

/** A gRPC error as @grpc/grpc-js builds it (callErrorFromStatus): `<code> <NAME>: <details>`, code, details, metadata. */
function grpcError(code: status, details: string): Error {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

/** The SDK's wrapping of a failed raw call (WorkflowClient.rethrowGrpcError). */
function wrapped(code: status, details: string): ServiceError {
  return new ServiceError('Failed to start Workflow', { cause: grpcError(code, details) });
}

function expectTranslation(error: unknown, name: string, fields: Record<string, unknown> = {}, context = {}): FlowgateError {
  const translated = translateError(error, context);
  assert.is(translated.name, name);
  for (const [key, value] of Object.entries(fields)) assert.equal((translated as unknown as Record<string, unknown>)[key], value, key);
  assert.is(translated.cause, error, 'the original is kept as cause');
  return translated;
}

test('NOT_FOUND, raw or wrapped, and the SDK WorkflowNotFoundError: WorkflowNotFoundError naming the execution', () => {
  const raw = expectTranslation(grpcError(status.NOT_FOUND, 'workflow not found for ID: x'), 'WorkflowNotFoundError', { workflowId: 'x' }, { workflowId: 'x' });
  assert.is(raw.message, 'Workflow x not found');
  const pinned = expectTranslation(wrapped(status.NOT_FOUND, 'nope'), 'WorkflowNotFoundError', { workflowId: 'x', runId: 'r' }, { workflowId: 'x', runId: 'r' });
  assert.is(pinned.message, 'Run r of workflow x not found');
  expectTranslation(new TemporalNotFoundError('not found', 'from-sdk', undefined), 'WorkflowNotFoundError', { workflowId: 'from-sdk' });
});

test('a run that closed between describe and the call: WorkflowClosedError when the caller expects it', () => {
  const gone = new TemporalNotFoundError('workflow execution already completed', 'x', 'r');
  const translated = translateError(gone, { workflowId: 'x', runId: 'r', closedIfGone: true });
  assert.ok(translated instanceof WorkflowClosedError);
  assert.equal([translated.workflowId, translated.runId], ['x', 'r']);
  assert.is(translateError(gone, { workflowId: 'x', runId: 'r' }).name, 'WorkflowNotFoundError', 'without the flag it is just gone');
});

test('ALREADY_EXISTS and WorkflowExecutionAlreadyStartedError: WorkflowAlreadyStartedError', () => {
  expectTranslation(new WorkflowExecutionAlreadyStartedError('Workflow execution already started', 'x', 'wf'), 'WorkflowAlreadyStartedError', { workflowId: 'x' });
  expectTranslation(wrapped(status.ALREADY_EXISTS, 'exists'), 'WorkflowAlreadyStartedError', { workflowId: 'y' }, { workflowId: 'y' });
});

test('RESOURCE_EXHAUSTED "workflow is closing" on a run that was open a moment ago: WorkflowClosedError, not an outage', () => {
  // The fuzzer's second reply to a run completing from its first got a 503 EngineUnavailableError.
  const closing = new ServiceError('Failed to signal Workflow', {
    cause: grpcError(status.RESOURCE_EXHAUSTED, 'workflow operation can not be applied because workflow is closing'),
  });
  const translated = expectTranslation(closing, 'WorkflowClosedError', { workflowId: 'x', runId: 'r' }, { workflowId: 'x', runId: 'r', closedIfGone: true });
  assert.match(translated.message, /already closed/);
  expectTranslation(closing, 'EngineUnavailableError', {}, { workflowId: 'x', runId: 'r' });
  const rateLimited = grpcError(status.RESOURCE_EXHAUSTED, 'namespace rate limit exceeded');
  expectTranslation(rateLimited, 'EngineUnavailableError', {}, { workflowId: 'x', runId: 'r', closedIfGone: true });
});

test('INVALID_ARGUMENT "Workflow history size exceeds limit" on a signal: WorkflowClosedError (the server is terminating the run)', () => {
  // A reply to a run whose history just passed limit.historySize.error, before the server terminated it, was a 500.
  const overLimit = new ServiceError('Failed to signal Workflow', {
    cause: grpcError(status.INVALID_ARGUMENT, 'Workflow history size exceeds limit.'),
  });
  const translated = expectTranslation(overLimit, 'WorkflowClosedError', { workflowId: 'x', runId: 'r' }, { workflowId: 'x', runId: 'r', closedIfGone: true });
  assert.match(translated.message, /history .*size limit/);
  expectTranslation(overLimit, 'EngineError', {}, { workflowId: 'x', runId: 'r' });
});

test('INVALID_ARGUMENT "WorkflowId length exceeds limit": a ValidationError naming workflowId, not an engine failure', () => {
  // limit.maxIDLength counts bytes of UTF-8: 1000 two-byte characters pass the API's rule and used to answer 500.
  const error = wrapped(status.INVALID_ARGUMENT, 'WorkflowId length exceeds limit.');
  const translated = expectTranslation(error, 'ValidationError', { workflowId: 'éé' }, { workflowId: 'éé' });
  assert.equal(translated.issues?.map((issue) => issue.path), [['workflowId']]);
  assert.match(translated.message, /maxIDLength/);
  expectTranslation(grpcError(status.INVALID_ARGUMENT, 'some other argument is wrong'), 'EngineError');
});

test('INVALID_ARGUMENT: a ValidationError of the page token only when the call carried one', () => {
  const error = grpcError(status.INVALID_ARGUMENT, 'Invalid NextPageToken.');
  const translated = expectTranslation(error, 'ValidationError', {}, { pageToken: true });
  assert.equal(translated.issues?.map((issue) => [issue.code, issue.path]), [['invalid_page_token', ['pageToken']]]);
  const other = expectTranslation(error, 'EngineError');
  assert.is.not(other.message, error.message, 'no engine message leaks');
});

test('UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED and socket errors: EngineUnavailableError, retry after 5 s', () => {
  for (const code of [status.UNAVAILABLE, status.DEADLINE_EXCEEDED, status.RESOURCE_EXHAUSTED]) {
    const translated = expectTranslation(wrapped(code, 'x'), 'EngineUnavailableError', { retryAfterSeconds: 5 });
    assert.is(translated.message, 'Temporal is unreachable');
  }
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  expectTranslation(refused, 'EngineUnavailableError');
  expectTranslation(Object.assign(new Error('transport'), { name: 'TransportError' }), 'EngineUnavailableError');
});

test('anything else: a generic EngineError; a namespace that does not exist says so; core errors pass through', () => {
  const translated = expectTranslation(grpcError(status.INTERNAL, 'db exploded at row 7'), 'EngineError');
  assert.is(translated.message, 'The workflow engine failed to handle the request');
  expectTranslation(new TypeError('bug'), 'EngineError');
  const namespace = expectTranslation(new NamespaceNotFoundError('ghost'), 'EngineError');
  assert.match(namespace.message, /namespace "ghost" does not exist/);
  // The raw service's calls (describe, list, terminate, ...) get a plain NOT_FOUND naming the namespace: not a missing run.
  const raw = expectTranslation(grpcError(status.NOT_FOUND, 'Namespace flowgate is not found.'), 'EngineError');
  assert.is(raw.message, 'Temporal namespace "flowgate" does not exist');
  const core = new WorkflowClosedError('closed');
  assert.is(translateError(core), core);
});

test('a real gRPC failure from the client (no server on the port) becomes EngineUnavailableError', async () => {
  const connection = Connection.lazy({ address: '127.0.0.1:1' });
  try {
    await connection.withDeadline(Date.now() + 300, () => connection.workflowService.getSystemInfo({}));
    assert.unreachable('nothing listens there');
  } catch (error) {
    const translated = translateError(error);
    assert.is(translated.name, 'EngineUnavailableError');
    assert.is(translated.cause, error);
  } finally {
    await connection.close();
  }
});

test.run();
