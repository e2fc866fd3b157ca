import * as assert from 'uvu/assert';
import { z } from 'zod';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectError, expectStatus, historyEvents, http, start, statusOf, waitUntil, wf } from '../support/contract.js';
import { approvalReply } from '../fixtures/workflows/contract.js';

/** A workflow's feedbackSchema (docs/authoring.md): published with its schemas, checked by POST /workflow/feedback. */
const test = contractSuite('feedback schema');

const signals = async (api: Parameters<typeof historyEvents>[0], workflowId: string, runId: string) =>
  (await historyEvents(api, workflowId, runId)).filter((event) => event.type === 'signal_received');

test('GET /workflow/list publishes the feedbackSchema as JSON Schema of what a caller sends; none for a workflow without one', async ({ api }) => {
  const { body } = await http(api, 'GET', '/workflow/list');
  const byName = new Map<string, Record<string, unknown>>(body.workflows.map((workflow: { name: string }) => [workflow.name, workflow]));
  const published = byName.get('awaits_approval')?.feedbackSchema as { required?: string[] } | undefined;
  assert.equal(published, z.toJSONSchema(approvalReply, { unrepresentable: 'any', io: 'input' }));
  assert.equal(published?.required, ['approved'], 'the note has a default: a caller may leave it out');
  assert.not.ok('feedbackSchema' in byName.get('awaits_feedback')!, 'a workflow without one publishes none');
});

test('a payload the schema refuses: 400 ValidationError with issues, nothing delivered; the run keeps waiting and takes a matching one', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_approval', {}, uniqueId('fbs-refused'));
  const wrongType = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: 'yes' } } });
  expectError(wrongType, 400, 'ValidationError');
  assert.match(wrongType.body.message, /feedback schema of workflow "awaits_approval"/);
  assert.equal(wrongType.body.issues.map((issue: { path: unknown[] }) => issue.path), [['payload', 'approved']]);
  const extraField = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true, by: 'me' } } });
  expectError(extraField, 400, 'ValidationError');
  // Keyed like a client that retries: a refusal is not kept as the key's answer.
  const keyed = { 'idempotency-key': uniqueId('fbs-key') };
  expectError(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: {} }, headers: keyed }), 400, 'ValidationError');

  assert.is((await statusOf(api, workflowId)).body.status, 'running');
  assert.equal(await signals(api, workflowId, runId), [], 'no refused reply reached the run');

  const accepted = await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: true } }, headers: keyed });
  expectStatus(accepted, 200);
  assert.equal(accepted.body, { workflowId, runId });
  await waitUntil(api, workflowId, 'completed');
  const result = await http(api, 'GET', `${wf(workflowId, runId)}/result`);
  assert.equal(result.body.output, { approved: true, note: 'none' }, 'the workflow got the reply parsed: the default applied');
  assert.equal(
    (await signals(api, workflowId, runId)).map((event) => event.attributes.payload),
    [{ approved: true }],
    'history records the one reply delivered, as it was sent',
  );
});

test('a closed run is still 409 whatever the payload', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'awaits_approval', {}, uniqueId('fbs-closed'));
  expectStatus(await http(api, 'POST', `${wf(workflowId, runId)}/terminate`, { json: { reason: 'closed first' } }), 200);
  await waitUntil(api, workflowId, 'terminated');
  expectError(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { approved: 'yes' } } }), 409, 'WorkflowClosedError', { workflowId });
});

test.run();
