import * as assert from 'uvu/assert';
import { startTestApi } from '../support/engines.js';
import { uniqueId } from '../support/http.js';
import {
  contractSuite,
  expectError,
  expectIssueAt,
  expectNothingStarted,
  expectStatus,
  historyEvents,
  http,
  runsOfId,
  start,
  statusOf,
  UUID,
  waitUntil,
  wf,
} from '../support/contract.js';
import type { TestResponse } from '../support/http.js';
import { eventually } from '../support/eventually.js';

/** Idempotency-Key on POST /workflow, /workflow/run, /workflow/feedback, reset and terminate (issue 9). */
const test = contractSuite('Idempotency-Key');

const DAY_MS = 24 * 3600 * 1000;
const withKey = (key: string, json: unknown) => ({ json, headers: { 'idempotency-key': key } });

/** The `Idempotency-Expires` of a keyed answer: an HTTP-date about the retention (24 h by default) after `from`. */
function expiresAbout(response: TestResponse, from: number, retentionMs = DAY_MS): Date {
  const header = response.headers['idempotency-expires'];
  assert.ok(header, `a keyed answer says when it expires: ${JSON.stringify(response.headers)}`);
  assert.match(header!, /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/, 'an HTTP-date');
  const expires = new Date(header!);
  const offset = expires.getTime() - from - retentionMs;
  assert.ok(Math.abs(offset) < 120_000, `expires about ${retentionMs} ms after the answer was final (${header})`);
  return expires;
}

/** Exactly one run has this id (the run list is eventually consistent on Temporal: wait until it lists one). */
async function expectOneRun(api: Parameters<typeof runsOfId>[0], workflowName: string, workflowId: string): Promise<string> {
  return eventually(`the run list to show the run of ${workflowId}`, async () => {
    const runs = await runsOfId(api, workflowName, workflowId);
    assert.ok(runs.length <= 1, `exactly one run of ${workflowId}, not ${runs.length}`);
    return runs.length === 1 ? (runs[0].runId as string) : undefined;
  });
}

test('ten concurrent POST /workflow with one key start exactly one run and all get the same start response', async ({ api }) => {
  const key = uniqueId('idem-start');
  const body = { workflowName: 'awaits_feedback', input: {} };
  const before = Date.now();
  const responses = await Promise.all(Array.from({ length: 10 }, () => http(api, 'POST', '/workflow', withKey(key, body))));
  for (const response of responses) expectStatus(response, 200, 'a duplicate start');
  const first = responses[0]!.body;
  assert.match(first.runId, UUID);
  for (const response of responses) assert.equal(response.body, first, 'every duplicate gets the same start response');
  const expires = responses.map((response) => expiresAbout(response, before).getTime());
  assert.is(new Set(expires).size, 1, 'one stored answer, one expiry');
  assert.is(await expectOneRun(api, 'awaits_feedback', first.workflowId), first.runId);

  // Finished or not, a retry gets the stored start response, and still nothing starts.
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId: first.workflowId, payload: { done: true } } }), 200);
  await waitUntil(api, first.workflowId, 'completed');
  const retry = await http(api, 'POST', '/workflow', withKey(key, body));
  expectStatus(retry, 200);
  assert.equal(retry.body, first);
  assert.is(new Date(retry.headers['idempotency-expires']!).getTime(), expires[0], 'the same expiry');
  assert.is(await expectOneRun(api, 'awaits_feedback', first.workflowId), first.runId);
});

test('concurrent POST /workflow/run with one key wait on one run; after it finished the stored result is answered', async ({ api }) => {
  const key = uniqueId('idem-run');
  const body = { workflowName: 'sleeper', input: { ms: 600 }, timeout: 30 };
  const responses = await Promise.all(Array.from({ length: 5 }, () => http(api, 'POST', '/workflow/run', withKey(key, body))));
  const closedBy = Date.now();
  for (const response of responses) expectStatus(response, 200, 'a duplicate run');
  const first = responses[0]!.body;
  assert.is(first.status, 'completed');
  assert.equal(first.output, { slept: 600 });
  for (const response of responses) assert.equal(response.body, first, 'every duplicate gets the same result');
  const expires = expiresAbout(responses[0]!, closedBy);
  assert.is(await expectOneRun(api, 'sleeper', first.workflowId), first.runId);

  const retry = await http(api, 'POST', '/workflow/run', withKey(key, body));
  expectStatus(retry, 200);
  assert.equal(retry.body, first, 'the stored result');
  assert.is(retry.headers['idempotency-expires'], expires.toUTCString());
  // The result version and the wait only shape this answer: a retry may change them.
  const legacy = await http(api, 'POST', '/workflow/run?v=legacy', withKey(key, { ...body, timeout: 5 }));
  expectStatus(legacy, 200);
  assert.match(legacy.headers['deprecation'] ?? '', /^@\d+$/);
  assert.is(legacy.body.runId, first.runId);
  assert.is(await expectOneRun(api, 'sleeper', first.workflowId), first.runId);
});

test('a keyed run-and-wait that continues as new: a retry finds the chain by its first run and answers its end', async ({ api }) => {
  const key = uniqueId('idem-chain');
  const body = { workflowName: 'countdown', input: { n: 2 } };
  const first = await http(api, 'POST', '/workflow/run', withKey(key, body));
  expectStatus(first, 200);
  assert.equal(first.body.output, { done: true });
  const retry = await http(api, 'POST', '/workflow/run', withKey(key, body));
  expectStatus(retry, 200);
  assert.equal(retry.body, first.body, 'the result of the last run of the chain, started once');
  assert.is(retry.headers['idempotency-expires'], first.headers['idempotency-expires']);
  expectError(await http(api, 'POST', '/workflow/run', withKey(key, { ...body, input: { n: 3 } })), 409, 'IdempotencyKeyReusedError', {
    workflowId: first.body.workflowId,
  });
  assert.is((await runsOfId(api, 'countdown', first.body.workflowId)).length <= 3, true, 'one chain of three runs, no second chain');
});

test('a run-and-wait that timed out (408) is joined by its retry, which waits on the same run', async ({ api }) => {
  const key = uniqueId('idem-408');
  const timedOut = await http(api, 'POST', '/workflow/run', withKey(key, { workflowName: 'awaits_feedback', input: {}, timeout: 0.3 }));
  expectError(timedOut, 408, 'WorkflowExecutionTimedOutError', { workflowId: timedOut.body.workflowId, runId: timedOut.body.runId });
  const { workflowId, runId } = timedOut.body;
  const retry = http(api, 'POST', '/workflow/run', withKey(key, { workflowName: 'awaits_feedback', input: {}, timeout: 30 }));
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { late: true } } }), 200);
  const joined = await retry;
  expectStatus(joined, 200);
  assert.is(joined.body.runId, runId, 'the same run');
  assert.equal(joined.body.output, { reply: { late: true } });
  assert.is(await expectOneRun(api, 'awaits_feedback', workflowId), runId);
});

test('the same key with another body, or on another endpoint, is 409 IdempotencyKeyReusedError and starts nothing', async ({ api }) => {
  const key = uniqueId('idem-reuse');
  const first = await http(api, 'POST', '/workflow', withKey(key, { workflowName: 'awaits_feedback', input: {} }));
  expectStatus(first, 200);
  const { workflowId, runId } = first.body;
  for (const [path, body] of [
    ['/workflow', { workflowName: 'awaits_feedback', input: { timeoutMs: 60_000 } }],
    ['/workflow', { workflowName: 'echo', input: { message: 'another workflow' } }],
    ['/workflow', { workflowName: 'awaits_feedback', input: {}, callbackUrl: 'http://127.0.0.1:9/another-receiver' }],
    ['/workflow/run', { workflowName: 'awaits_feedback', input: {}, timeout: 1 }],
  ] as const) {
    const reused = await http(api, 'POST', path, withKey(key, body));
    expectError(reused, 409, 'IdempotencyKeyReusedError', { workflowId });
    assert.is(reused.headers['idempotency-expires'], undefined, 'an error is not a stored answer');
  }
  assert.is(await expectOneRun(api, 'awaits_feedback', workflowId), runId);
  assert.is((await statusOf(api, workflowId)).body.status, 'running', 'the first run is untouched');
  assert.equal(await runsOfId(api, 'echo', workflowId), [], 'the other workflow did not start');
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`), 200);
});

test('with a workflowId the key still dedupes, where a request without a key is 409 WorkflowAlreadyStartedError as before', async ({ api }) => {
  const key = uniqueId('idem-id');
  const workflowId = uniqueId('idem-own-id');
  const body = { workflowName: 'awaits_feedback', input: {}, workflowId };
  const [a, b] = await Promise.all([http(api, 'POST', '/workflow', withKey(key, body)), http(api, 'POST', '/workflow', withKey(key, body))]);
  expectStatus(a, 200);
  expectStatus(b, 200);
  assert.equal(b.body, a.body);
  assert.is(a.body.workflowId, workflowId);
  expectError(await http(api, 'POST', '/workflow', { json: body }), 409, 'WorkflowAlreadyStartedError', { workflowId });
  expectError(await http(api, 'POST', '/workflow', withKey(uniqueId('idem-other'), body)), 409, 'WorkflowAlreadyStartedError', { workflowId });
  expectError(await http(api, 'POST', '/workflow', withKey(key, { ...body, input: { timeoutMs: 5 } })), 409, 'IdempotencyKeyReusedError', {
    workflowId,
  });
  assert.is(await expectOneRun(api, 'awaits_feedback', workflowId), a.body.runId);
  expectStatus(await http(api, 'POST', `${wf(workflowId, a.body.runId)}/terminate`), 200);
});

test('feedback with a key is delivered once: duplicates and a retry after the run closed get the same answer', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('idem-feedback'));
  const key = uniqueId('idem-fb-key');
  const body = { workflowId, payload: { approved: true } };
  const [a, b] = await Promise.all([http(api, 'POST', '/workflow/feedback', withKey(key, body)), http(api, 'POST', '/workflow/feedback', withKey(key, body))]);
  expectStatus(a, 200);
  expectStatus(b, 200);
  assert.equal(a.body, { workflowId, runId });
  assert.equal(b.body, a.body);
  await waitUntil(api, workflowId, 'completed');
  const retry = await http(api, 'POST', '/workflow/feedback', withKey(key, body));
  expectStatus(retry, 200, 'the stored answer, not WorkflowClosedError');
  assert.equal(retry.body, a.body);
  assert.is(retry.headers['idempotency-expires'], a.headers['idempotency-expires']);
  const signals = (await historyEvents(api, workflowId, runId)).filter((event) => event.type === 'signal_received');
  assert.is(signals.length, 1, 'delivered once');
  expectError(await http(api, 'POST', '/workflow/feedback', withKey(key, { workflowId, payload: { approved: false } })), 409, 'IdempotencyKeyReusedError');
  expectError(await http(api, 'POST', '/workflow/feedback', { json: body }), 409, 'WorkflowClosedError', { workflowId });
});

test('terminate with a key: a retry gets the stored answer instead of WorkflowClosedError', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('idem-terminate'));
  const key = uniqueId('idem-term-key');
  const first = await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, withKey(key, { reason: 'once' }));
  expectStatus(first, 200);
  assert.equal(first.body, { terminated: true, workflowId, runId });
  expiresAbout(first, Date.now());
  const retry = await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, withKey(key, { reason: 'once' }));
  expectStatus(retry, 200);
  assert.equal(retry.body, first.body);
  expectError(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, withKey(key, { reason: 'twice' })), 409, 'IdempotencyKeyReusedError');
  expectError(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: { reason: 'once' } }), 409, 'WorkflowClosedError', { workflowId });
});

test('reset with a key makes one new run, on the pinned and the deprecated form', async ({ api }) => {
  for (const pinned of [true, false]) {
    const workflowId = uniqueId('idem-reset');
    const old = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', workflowId, input: { n: 1 } } });
    expectStatus(old, 200);
    const path = pinned ? `${wf(workflowId, old.body.runId)}/reset` : `${wf(workflowId)}/reset`;
    const key = uniqueId('idem-reset-key');
    const first = await http(api, 'POST', path, withKey(key, { stepName: 'add_one' }));
    expectStatus(first, 200);
    assert.is.not(first.body.runId, old.body.runId);
    const retry = await http(api, 'POST', path, withKey(key, { stepName: 'add_one' }));
    expectStatus(retry, 200);
    assert.equal(retry.body, first.body, 'the same new run, not a reset of the reset');
    expectError(await http(api, 'POST', path, withKey(key, { stepName: 'double' })), 409, 'IdempotencyKeyReusedError');
    await waitUntil(api, workflowId, 'completed', first.body.runId);
    assert.is((await statusOf(api, workflowId)).body.runId, first.body.runId, 'the reset run is still the latest');
  }
});

test('a malformed Idempotency-Key is 400 ValidationError and nothing starts', async ({ api }) => {
  for (const key of ['two words', 'x'.repeat(256), 'tab\there']) {
    const workflowId = uniqueId('idem-bad');
    const response = await http(api, 'POST', '/workflow', withKey(key, { workflowName: 'echo', input: { message: 'x' }, workflowId }));
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'idempotency-key');
    await expectNothingStarted(api, workflowId, 'echo');
  }
});

test('an API restart between two requests with one key (a new API instance on the same engine)', async ({ api }) => {
  const key = uniqueId('idem-restart');
  const body = { workflowName: 'awaits_feedback', input: {} };
  const earlier = await startTestApi();
  let first: TestResponse;
  try {
    first = await http(earlier, 'POST', '/workflow', withKey(key, body));
    expectStatus(first, 200);
  } finally {
    await earlier.close();
  }
  const retry = await http(api, 'POST', '/workflow', withKey(key, body));
  expectStatus(retry, 200);
  assert.is(retry.body.workflowId, first.body.workflowId, 'the key derives the same workflow id in every API process');
  if (api.engine === 'temporal') {
    // The key lives in Temporal with the run: the new API instance answers the stored start response.
    assert.equal(retry.body, first.body);
    assert.equal(retry.headers['idempotency-expires'], first.headers['idempotency-expires']);
    expectError(await http(api, 'POST', '/workflow', withKey(key, { ...body, input: { timeoutMs: 9 } })), 409, 'IdempotencyKeyReusedError', {
      workflowId: first.body.workflowId,
    });
  } else {
    // Another embedded engine, on a data directory of its own: it never saw the first request, so the retry starts
    // anew (the same engine after a restart does recognise it: tests/contract/restart.test.ts).
    assert.is.not(retry.body.runId, first.body.runId);
  }
  expectStatus(await http(api, 'POST', `${wf(retry.body.workflowId, retry.body.runId)}/terminate`), 200);
});

test('feedback, terminate and reset retried through another API instance (another replica, or after a restart)', async ({ api }) => {
  const other = await startTestApi();
  try {
    const temporal = api.engine === 'temporal';
    const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('idem-replica-fb'));
    const feedbackKey = uniqueId('idem-replica-fb-key');
    const body = { workflowId, payload: { approved: true } };
    const delivered = await http(api, 'POST', '/workflow/feedback', withKey(feedbackKey, body));
    expectStatus(delivered, 200);
    await waitUntil(api, workflowId, 'completed');
    const feedbackReused = await http(other, 'POST', '/workflow/feedback', withKey(feedbackKey, { workflowId, payload: { approved: false } }));
    const feedbackRetry = await http(other, 'POST', '/workflow/feedback', withKey(feedbackKey, body));
    if (temporal) {
      // The key travelled with the signal: the other instance finds it in the run's history.
      expectError(feedbackReused, 409, 'IdempotencyKeyReusedError', { workflowId: null });
      expectStatus(feedbackRetry, 200, 'the same answer, not WorkflowClosedError');
      assert.equal(feedbackRetry.body, delivered.body);
      assert.is(feedbackRetry.headers['idempotency-expires'], delivered.headers['idempotency-expires'], 'the same expiry from either instance');
      const signals = (await historyEvents(api, workflowId, runId)).filter((event) => event.type === 'signal_received');
      assert.is(signals.length, 1, 'delivered once');
    } else {
      // Another embedded engine (its own data directory) has never seen the run; a restart of the same one recognises
      // the key (tests/contract/restart.test.ts).
      expectError(feedbackReused, 404, 'WorkflowNotFoundError', { workflowId });
      expectError(feedbackRetry, 404, 'WorkflowNotFoundError', { workflowId });
    }

    const open = await start(api, 'awaits_feedback', {}, uniqueId('idem-replica-term'));
    const terminateKey = uniqueId('idem-replica-term-key');
    const terminatePath = `${wf(open.workflowId, open.runId)}/terminate`;
    const terminated = await http(api, 'POST', terminatePath, withKey(terminateKey, { reason: 'once' }));
    expectStatus(terminated, 200);
    const terminateReused = await http(other, 'POST', terminatePath, withKey(terminateKey, { reason: 'other' }));
    const terminateRetry = await http(other, 'POST', terminatePath, withKey(terminateKey, { reason: 'once' }));
    if (temporal) {
      // The key is in the terminate's details, in the run's history.
      expectError(terminateReused, 409, 'IdempotencyKeyReusedError', { workflowId: null });
      expectStatus(terminateRetry, 200, 'the same answer, not WorkflowClosedError');
      assert.equal(terminateRetry.body, terminated.body);
      assert.is(terminateRetry.headers['idempotency-expires'], terminated.headers['idempotency-expires'], 'the same expiry from either instance');
    } else {
      expectError(terminateReused, 404, 'WorkflowNotFoundError', { workflowId: open.workflowId });
      expectError(terminateRetry, 404, 'WorkflowNotFoundError', { workflowId: open.workflowId });
    }

    const resetId = uniqueId('idem-replica-reset');
    const old = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'arithmetic', workflowId: resetId, input: { n: 1 } } });
    expectStatus(old, 200);
    const resetKey = uniqueId('idem-replica-reset-key');
    const resetPath = `${wf(resetId, old.body.runId)}/reset`;
    const reset = await http(api, 'POST', resetPath, withKey(resetKey, { stepName: 'add_one' }));
    expectStatus(reset, 200);
    const resetRetry = await http(other, 'POST', resetPath, withKey(resetKey, { stepName: 'add_one' }));
    if (temporal) {
      expectStatus(resetRetry, 200);
      assert.equal(resetRetry.body, reset.body, 'the run the first reset made, not another reset');
      assert.is(resetRetry.headers['idempotency-expires'], reset.headers['idempotency-expires'], 'the same expiry from either instance');
      // The key is in the reason of the reset that made the run: another body is told apart on another instance too.
      expectError(await http(other, 'POST', resetPath, withKey(resetKey, { stepName: 'double' })), 409, 'IdempotencyKeyReusedError');
    } else {
      expectError(resetRetry, 404, 'WorkflowNotFoundError', { maybeWorkflowId: resetId });
    }
  } finally {
    await other.close();
  }
});

test.run();

/** IDEMPOTENCY_RETENTION_SECONDS: once a stored answer expired, the key is forgotten. */
const short = contractSuite('Idempotency-Key retention', { IDEMPOTENCY_RETENTION_SECONDS: '1' });

short('after the retention the same key is a new request: another body starts another run instead of a 409', async ({ api }) => {
  const key = uniqueId('idem-expired');
  const first = await http(api, 'POST', '/workflow/run', withKey(key, { workflowName: 'echo', input: { message: 'one' } }));
  expectStatus(first, 200);
  expiresAbout(first, Date.now(), 1000);
  // Until the retention ends the other body is a 409 (a refusal, nothing stored): asked again until it is not.
  const second = await eventually('the stored answer to expire', async () => {
    const answer = await http(api, 'POST', '/workflow/run', withKey(key, { workflowName: 'echo', input: { message: 'two' } }));
    return answer.status === 409 ? undefined : answer;
  }, { intervalMs: 100 });
  expectStatus(second, 200);
  assert.is(second.body.workflowId, first.body.workflowId);
  assert.is.not(second.body.runId, first.body.runId, 'a new run');
  assert.equal(second.body.output, { message: 'two' });
  const third = await http(api, 'POST', '/workflow/run', withKey(key, { workflowName: 'echo', input: { message: 'two' } }));
  assert.is(third.body.runId, second.body.runId, 'the new answer is stored in turn');

  // Kept by the API process (terminate): forgotten after the retention too, so a late retry is a new terminate.
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('idem-expired-term'));
  const termKey = uniqueId('idem-expired-term-key');
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, withKey(termKey, {})), 200);
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, withKey(termKey, {})), 200, 'stored');
  // Until the retention ends the stored 200 is answered again (nothing done): asked again until it is not.
  const late = await eventually('the stored terminate to expire', async () => {
    const answer = await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, withKey(termKey, {}));
    return answer.status === 200 ? undefined : answer;
  }, { intervalMs: 100 });
  expectError(late, 409, 'WorkflowClosedError', { workflowId });
});

short.run();
