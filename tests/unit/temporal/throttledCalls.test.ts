import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { getEventListeners } from 'node:events';
import { Metadata, status } from '@grpc/grpc-js';
import { throttlePauseMs } from '../../../adapters/temporal/engine/calls.js';
import { isThrottled } from '../../../adapters/temporal/engine/grpcErrors.js';
import { eventually } from '../../support/eventually.js';
import { ManualClock } from '../../support/manualClock.js';
import { rejection } from '../../support/rejection.js';
import { FakeClient } from './fakeClient.js';

/** A gRPC error as @grpc/grpc-js builds it: `<code> <NAME>: <details>`, code, details, metadata. */
function grpcError(code: status, details: string): Error {
  return Object.assign(new Error(`${code} ${status[code]}: ${details}`), { code, details, metadata: new Metadata() });
}

// What Temporal's rate limiters answer, as seen from the dev server under a bulk operation beside other traffic.
const PERSISTENCE_LIMIT = grpcError(status.UNAVAILABLE, 'Unable to read search attributes types: System Persistence Max QPS Reached.');
const NAMESPACE_LIMIT = grpcError(status.RESOURCE_EXHAUSTED, 'namespace rate limit exceeded');
const LIST_ANSWER = { executions: [], nextPageToken: new Uint8Array() };

/** A listWorkflowExecutions that fails with `failures` in turn, then answers. */
function failingThen(failures: Error[]): FakeClient {
  let calls = 0;
  return new FakeClient({
    listWorkflowExecutions: async () => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return LIST_ANSWER;
    },
  });
}

// The calls measure their deadline and pauses on a manual clock: the attempts counted and the times compared below are
// the code's, whatever else the machine is doing.
const list = (client: FakeClient, calls = client.calls()) => calls.call(() => calls.service.listWorkflowExecutions({ namespace: 'default', query: '' }));

test('a call turned away by the rate limits is sent again after a pause, within its deadline, and answers', async () => {
  const client = failingThen([NAMESPACE_LIMIT, PERSISTENCE_LIMIT]);
  const clock = new ManualClock();
  const startedAt = clock.now();
  assert.equal(await clock.settle(list(client, client.calls('default', clock))), LIST_ANSWER);
  assert.is(client.count('listWorkflowExecutions'), 3);
  const elapsed = clock.now() - startedAt;
  assert.ok(elapsed >= 80 + 160 && elapsed < 900, `two pauses of about 100 and 200 ms, took ${elapsed} ms`);
});

test('throttled past its deadline: the caller gets EngineUnavailableError, after a bounded number of attempts', async () => {
  const client = failingThen(Array.from({ length: 100 }, () => NAMESPACE_LIMIT));
  const clock = new ManualClock();
  const startedAt = clock.now();
  const error = await rejection(clock.settle(list(client, client.calls('default', clock))));
  const elapsed = clock.now() - startedAt;
  assert.is(error.name, 'EngineUnavailableError');
  assert.is(error.cause, NAMESPACE_LIMIT);
  // Deadline 1000 ms: attempts at about 0, 100, 300 and 700 ms; a fifth could not finish before it.
  assert.is(client.count('listWorkflowExecutions'), 4);
  assert.ok(elapsed < 1000, `gave up before the deadline, after ${elapsed} ms`);
});

test('what is not a throttle is answered at once: a server that cannot be reached, a closing run, an answer too large', async () => {
  const unreachable = grpcError(status.UNAVAILABLE, 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:7233');
  const closing = grpcError(status.RESOURCE_EXHAUSTED, 'workflow operation can not be applied because workflow is closing');
  const tooLarge = grpcError(status.RESOURCE_EXHAUSTED, 'Received message larger than max (9000000 vs. 4194304)');
  for (const failure of [unreachable, closing, tooLarge]) {
    assert.not.ok(isThrottled(failure), failure.message);
    const client = failingThen([failure]);
    const clock = new ManualClock();
    const startedAt = clock.now();
    await rejection(clock.settle(list(client, client.calls('default', clock))));
    assert.is(client.count('listWorkflowExecutions'), 1, failure.message);
    assert.ok(clock.now() - startedAt < 50, 'no pause');
  }
  assert.ok(isThrottled(PERSISTENCE_LIMIT));
  assert.ok(isThrottled(NAMESPACE_LIMIT));
});

test('an engine closed while a throttled call pauses: the call ends at once with the close, and is not sent again', async () => {
  const client = failingThen(Array.from({ length: 100 }, () => NAMESPACE_LIMIT));
  const clock = new ManualClock();
  const calls = client.calls('default', clock);
  const pending = list(client, calls);
  await eventually('the call to pause after its first attempt', () => clock.pendingTimers === 1, { intervalMs: 5 });
  const closedAt = clock.now();
  calls.close();
  // The clock stands still: the call can only end through the close, not after its pause.
  const error = await rejection(pending);
  assert.is(clock.now(), closedAt, 'not after the pause');
  assert.is(clock.pendingTimers, 0, 'the pause is cancelled');
  assert.is(error.name, 'EngineUnavailableError');
  assert.match(error.message, /closed/);
  await clock.advance(2000);
  assert.is(client.count('listWorkflowExecutions'), 1);
});

/** The calls a TemporalCalls holds for close() to abort (private: a leak there is invisible from outside until close). */
const inFlightOf = (calls: ReturnType<FakeClient['calls']>): number => (calls as unknown as { inFlight: Set<unknown> }).inFlight.size;

test("a caller's signal cancels its call with the caller's reason; settled calls leave no listener on it; a closed engine refuses new calls", async () => {
  let answer = true;
  const client = new FakeClient({ listWorkflowExecutions: () => (answer ? Promise.resolve(LIST_ANSWER) : new Promise<never>(() => {})) });
  const calls = client.calls();
  const caller = new AbortController();
  for (let index = 0; index < 100; index++) await list(client, calls).then(() => undefined);
  for (let index = 0; index < 100; index++) await calls.call(() => calls.service.listWorkflowExecutions({ namespace: 'default', query: '' }), {}, { signal: caller.signal });
  assert.is(getEventListeners(caller.signal, 'abort').length, 0, 'a long-lived caller signal does not collect listeners');
  assert.is(inFlightOf(calls), 0, 'settled calls are forgotten');

  answer = false;
  const hanging = calls.call(() => calls.service.listWorkflowExecutions({ namespace: 'default', query: '' }), {}, { signal: caller.signal });
  const reason = new Error('the client went away');
  caller.abort(reason);
  assert.is(await rejection(hanging), reason, "the caller's own reason, not gRPC's CANCELLED");
  assert.is(inFlightOf(calls), 0, 'a cancelled call is forgotten');

  const inFlight = list(client, calls);
  calls.close();
  const closed = await rejection(inFlight);
  assert.is(closed.name, 'EngineUnavailableError', 'a call in flight ends with the close');
  const refused = await rejection(list(client, calls));
  assert.is(refused.name, 'EngineUnavailableError');
  assert.match(refused.message, /closed/);
  assert.is(client.count('listWorkflowExecutions'), 202, 'the refused call was never sent');
});

test('pauses double from 100 ms to at most 2 s, each 80 to 100 % of that', () => {
  assert.is(throttlePauseMs(0, () => 0), 80);
  assert.is(throttlePauseMs(0, () => 1), 100);
  assert.is(throttlePauseMs(3, () => 1), 800);
  assert.is(throttlePauseMs(5, () => 1), 2000);
  assert.is(throttlePauseMs(40, () => 0.5), 1800);
});

test.run();
