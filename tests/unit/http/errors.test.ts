import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as errors from '../../../core/domain/errors.js';
import { answerError, causeChain, ERROR_RULES } from '../../../adapters/http/errorTable.js';
import * as transportErrors from '../../../adapters/http/transportErrors.js';

/** docs/api.md, "Status codes by error name": one row per error name. */
type NamedErrorClass = errors.FlowgateErrorClass<string> | typeof errors.CatalogNotAvailableError;

const CONTRACT: [NamedErrorClass, number][] = [
  [errors.ValidationError, 400],
  [transportErrors.UnauthorizedError, 401],
  [errors.ForbiddenError, 403],
  [errors.WorkflowNotFoundError, 404],
  [errors.CatalogNotAvailableError, 404],
  [transportErrors.NotFoundError, 404],
  [errors.StepNotFoundError, 404],
  [errors.TraceNotFoundError, 404],
  [errors.ScheduleNotFoundError, 404],
  [errors.ScheduleAlreadyExistsError, 409],
  [transportErrors.MethodNotAllowedError, 405],
  [errors.WorkflowExecutionTimedOutError, 408],
  [errors.WorkflowAlreadyStartedError, 409],
  [errors.StepNotCompletedError, 409],
  [errors.WorkflowClosedError, 409],
  [errors.IdempotencyKeyReusedError, 409],
  [transportErrors.GoneError, 410],
  [errors.PayloadTooLargeError, 413],
  [transportErrors.UnsupportedMediaTypeError, 415],
  [errors.UnsupportedWorkflowError, 424],
  [errors.WorkflowNotCompletedError, 424],
  [errors.EngineError, 500],
  [transportErrors.BodyAlreadyReadError, 500],
  [errors.EngineUnavailableError, 503],
  [errors.TraceStoreUnavailableError, 503],
  [transportErrors.ServerBusyError, 503],
  [errors.IdempotencyStoreFullError, 503],
  [transportErrors.BadRequestError, 400],
  [transportErrors.RequestTimeoutError, 408],
  [transportErrors.ExpectationFailedError, 417],
  [transportErrors.RequestHeaderFieldsTooLargeError, 431],
  [transportErrors.ClientClosedRequestError, 499],
];

/** Refused on purpose under overload: a 503 that is not logged as a fault. */
const EXPECTED_REFUSALS = new Set<string>([transportErrors.ServerBusyError.errorName, errors.IdempotencyStoreFullError.errorName]);

/** How each row's error is made: a catalog error must say why the catalog cannot take the request. */
function make(ErrorClass: NamedErrorClass): errors.FlowgateError {
  if (ErrorClass === errors.CatalogNotAvailableError) return new ErrorClass('client-safe message', { reason: 'unknown' });
  return new (ErrorClass as errors.FlowgateErrorClass<string>)('client-safe message');
}

for (const [ErrorClass, status] of CONTRACT) {
  test(`${ErrorClass.errorName} → ${status}`, () => {
    const answer = answerError(make(ErrorClass));
    assert.is(answer.status, status);
    assert.is(answer.body.error, ErrorClass.errorName);
    assert.is(answer.serverFault, status >= 500 && !EXPECTED_REFUSALS.has(ErrorClass.errorName));
  });
}

test('ServerBusyError keeps its own message and tells the client to come back in a second', () => {
  const answer = answerError(new transportErrors.ServerBusyError('Too many open event streams (limit 2); retry shortly.'));
  assert.is(answer.body.message, 'Too many open event streams (limit 2); retry shortly.');
  assert.is(answer.headers['retry-after'], '1');
});

test('IdempotencyStoreFullError keeps its message and says when the oldest key expires', () => {
  const answer = answerError(new errors.IdempotencyStoreFullError('full; the oldest expires in 42 s', { workflowId: 'w', retryAfterSeconds: 42 }));
  assert.equal([answer.status, answer.body.message, answer.body.workflowId, answer.headers['retry-after']], [503, 'full; the oldest expires in 42 s', 'w', '42']);
});

test('every error the core and the HTTP adapter define has a row in the table', () => {
  const defined = ([...Object.values(errors), ...Object.values(transportErrors)] as unknown[])
    .filter((value): value is errors.FlowgateErrorClass<string> => typeof value === 'function' && 'errorName' in value)
    .map((errorClass) => errorClass.errorName)
    .sort();
  assert.equal(Object.keys(ERROR_RULES).sort(), defined);
  assert.equal(CONTRACT.map(([errorClass]) => errorClass.errorName).sort(), defined);
});

test('CatalogNotAvailableError for a known catalog without a worker is 503 with Retry-After', () => {
  const answer = answerError(new errors.CatalogNotAvailableError('catalog "main" has no worker yet', { reason: 'noLiveWorker', retryAfterSeconds: 2.2 }));
  assert.is(answer.status, 503);
  assert.is(answer.headers['retry-after'], '3');
  assert.is(answer.body.message, 'catalog "main" has no worker yet');
  assert.is(answerError(new errors.CatalogNotAvailableError('unknown catalog "x"', { reason: 'unknown' })).headers['retry-after'], undefined);
});

test('EngineUnavailableError always has a Retry-After; the engine hint wins over the default', () => {
  assert.is(answerError(new errors.EngineUnavailableError('dial tcp 10.0.0.7:7233: connection refused')).headers['retry-after'], '5');
  assert.is(answerError(new errors.EngineUnavailableError('x', { retryAfterSeconds: 30 })).headers['retry-after'], '30');
});

test('5xx bodies never carry the engine message, a stack or the cause', () => {
  const cause = new Error('grpc: UNAVAILABLE 10.0.0.7:7233 secret-host');
  for (const error of [
    new errors.EngineError('rpc error: code = Internal desc = boom at 10.0.0.7', { cause }),
    new errors.EngineUnavailableError('dial tcp 10.0.0.7:7233', { cause }),
    new TypeError("Cannot read properties of undefined (reading 'runId')"),
    'a thrown string',
    { weird: true },
  ]) {
    const text = JSON.stringify(answerError(error).body);
    assert.not.match(text, /10\.0\.0\.7|secret-host|rpc error|Cannot read|runId|string|weird|at /);
  }
  const unknown = answerError(new RangeError('x'));
  assert.equal(unknown, { status: 500, headers: {}, body: { error: 'InternalError', message: 'Internal server error.' }, serverFault: true });
});

test('a non-core error that happens to be named like a core error is still an internal error', () => {
  const impostor = Object.assign(new Error('leaky detail'), { name: 'WorkflowNotFoundError' });
  assert.is(answerError(impostor).status, 500);
  assert.is(answerError(impostor).body.message, 'Internal server error.');
});

test('workflowId is added when the error carries one; issues only (and always) for ValidationError', () => {
  assert.equal(answerError(new errors.WorkflowNotCompletedError('still running', { workflowId: 'wf-1', runId: 'r' })).body, {
    error: 'WorkflowNotCompletedError',
    message: 'still running',
    workflowId: 'wf-1',
  });
  assert.equal(answerError(new errors.ValidationError('bad')).body, { error: 'ValidationError', message: 'bad', issues: [] });
  const issues = [{ code: 'too_small', path: ['limit'], message: 'too small' }];
  assert.equal(answerError(new errors.ValidationError('bad', { issues })).body.issues, issues);
  assert.is('issues' in answerError(new errors.WorkflowNotFoundError('x', { issues })).body, false);
});

test('a run-and-wait 408 names its run: runId in the body, Location at the pinned result; a bare 408 has neither', () => {
  const answer = answerError(new errors.WorkflowExecutionTimedOutError('still running', { workflowId: 'orders/7', runId: 'r-1' }));
  assert.equal(answer.body, { error: 'WorkflowExecutionTimedOutError', message: 'still running', workflowId: 'orders/7', runId: 'r-1' });
  assert.is(answer.headers['location'], '/workflow/orders%2F7/runs/r-1/result');
  assert.equal(answerError(new errors.WorkflowExecutionTimedOutError('x')).headers, {});
});

test('Retry-After on a non-503 only when the error itself carries a hint (a long-poll that ran out)', () => {
  assert.is(answerError(new errors.WorkflowNotCompletedError('open', { workflowId: 'w', retryAfterSeconds: 1 })).headers['retry-after'], '1');
  assert.is(answerError(new errors.WorkflowNotCompletedError('open', { workflowId: 'w' })).headers['retry-after'], undefined);
});

test('401 carries WWW-Authenticate: Bearer', () => {
  assert.equal(answerError(new transportErrors.UnauthorizedError('no')).headers, { 'www-authenticate': 'Bearer' });
});

test('the cause chain for the log: every level, stacks included, cycles and depth bounded', () => {
  const root = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const middle = new errors.EngineError('describe failed', { cause: root, workflowId: 'wf-9' });
  const chain = causeChain(new Error('outer', { cause: middle }));
  assert.equal(chain.map((level) => level.name), ['Error', 'EngineError', 'Error']);
  assert.is(chain[1]!.workflowId, 'wf-9');
  assert.is(chain[2]!.code, 'ECONNRESET');
  assert.ok(chain.every((level) => typeof level.stack === 'string'));

  const cyclic = new Error('a') as Error & { cause?: unknown };
  cyclic.cause = cyclic;
  assert.is(causeChain(cyclic).length, 1);
  let deep: Error = new Error('0');
  for (let index = 1; index < 50; index++) deep = new Error(String(index), { cause: deep });
  assert.is(causeChain(deep).length, 10);
  assert.equal(causeChain({ detail: 1 }), [{ name: 'object', message: '{"detail":1}' }]);
});

test.run();
