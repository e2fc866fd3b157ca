import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectIssueAt, expectStatus, http, start, wf } from '../support/contract.js';

/** GET /workflow/{id}/result?wait=SECONDS and the pinned form: long-poll for a result (issue 9). */
const test = contractSuite('result long-poll', { RUN_TIMEOUT_MAX_SECONDS: '60' });

test('a wait returns the result as the run closes, on the id form and the pinned form', async ({ api }) => {
  for (const pinned of [false, true]) {
    const { workflowId, runId } = await start(api, 'sleeper', { ms: 700 }, uniqueId('lp-close'));
    const path = `${pinned ? wf(workflowId, runId) : wf(workflowId)}/result`;
    expectError(await http(api, 'GET', path), 424, 'WorkflowNotCompletedError', { maybeWorkflowId: workflowId });
    const startedAt = Date.now();
    const response = await http(api, 'GET', `${path}?wait=20`);
    const waited = Date.now() - startedAt;
    expectStatus(response, 200);
    assert.is(response.body.status, 'completed');
    assert.equal(response.body.output, { slept: 700 });
    assert.is(response.body.runId, runId);
    assert.ok(waited < 15_000, `answered as the run closed, not at the end of the wait (${waited} ms)`);
  }
});

test('a wait that runs out is the usual 424 with Retry-After; the run goes on and takes its reply', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('lp-open'));
  for (const path of [`${wf(workflowId)}/result?wait=0.4`, `${wf(workflowId, runId)}/result?wait=0.4&v=legacy`]) {
    const startedAt = Date.now();
    const response = await http(api, 'GET', path);
    assert.ok(Date.now() - startedAt >= 350, `waited the 0.4 s (${Date.now() - startedAt} ms)`);
    expectError(response, 424, 'WorkflowNotCompletedError', { workflowId });
    assert.is(response.headers['retry-after'], '1');
  }
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { ok: true } } }), 200);
  const done = await http(api, 'GET', `${wf(workflowId)}/result?wait=20`);
  expectStatus(done, 200);
  assert.equal(done.body.output, { reply: { ok: true } });
});

test('the id form follows continue-as-new to the end of the chain; a closed run answers at once', async ({ api }) => {
  const { workflowId } = await start(api, 'countdown', { n: 3 }, uniqueId('lp-chain'));
  const response = await http(api, 'GET', `${wf(workflowId)}/result?wait=20`);
  expectStatus(response, 200);
  assert.is(response.body.status, 'completed');
  assert.equal(response.body.output, { done: true });
  const startedAt = Date.now();
  expectStatus(await http(api, 'GET', `${wf(workflowId)}/result?wait=30`), 200);
  assert.ok(Date.now() - startedAt < 5_000, 'a closed run does not wait');
});

test('a pinned wait answers with its own run: continued_as_new as that run closes, not the end of the chain', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'continues_into_wait', { ms: 600 }, uniqueId('lp-pinned-chain'));
  const startedAt = Date.now();
  const pinned = await http(api, 'GET', `${wf(workflowId, runId)}/result?wait=20`);
  expectStatus(pinned, 200);
  assert.is(pinned.body.runId, runId);
  assert.is(pinned.body.status, 'continued_as_new');
  assert.ok(Date.now() - startedAt < 15_000, 'answered when the first run closed');
  // The id form keeps waiting for the chain's last run, which waits for its reply.
  const latest = await http(api, 'GET', `${wf(workflowId)}/result?wait=0.3`);
  expectError(latest, 424, 'WorkflowNotCompletedError', { workflowId });
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { n: 1 } } }), 200);
  const done = await http(api, 'GET', `${wf(workflowId)}/result?wait=20`);
  expectStatus(done, 200);
  assert.equal(done.body.output, { reply: { n: 1 } });
  assert.is.not(done.body.runId, runId);
});

test('wait must be a number of seconds from 0 to RUN_TIMEOUT_MAX_SECONDS; unknown ids are still 404', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_feedback', {}, uniqueId('lp-bad'));
  for (const wait of ['-1', 'soon', '61', '1e3', '', '0x10', '1.', 'Infinity']) {
    const response = await http(api, 'GET', `${wf(workflowId)}/result?wait=${wait}`);
    expectError(response, 400, 'ValidationError');
    expectIssueAt(response, 'wait');
  }
  // Any JSON number in range, exponents included (schemathesis sent 1.1754943508222875e-38).
  for (const wait of ['0', '1.1754943508222875e-38', '2E-1', '0.05']) {
    expectError(await http(api, 'GET', `${wf(workflowId)}/result?wait=${wait}`), 424, 'WorkflowNotCompletedError', { workflowId });
  }
  const unknown = uniqueId('lp-none');
  expectError(await http(api, 'GET', `${wf(unknown)}/result?wait=5`), 404, 'WorkflowNotFoundError', { maybeWorkflowId: unknown });
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: {} }), 200);
});

test.run();
