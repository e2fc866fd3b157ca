import * as assert from 'uvu/assert';
import { uniqueId } from '../support/http.js';
import { contractSuite, expectStatus, http, runAndWait, start, statusOf, waitUntil, wf } from '../support/contract.js';
import { CTX_MISTAKES } from '../fixtures/workflows/contract.js';
import { ODD_THROWN_AS } from '../fixtures/oddValues.js';

/**
 * Mistakes in a workflow's own code fail its run by name, the same on both engines, never the engine: a schema that
 * throws (a refinement or transform with a mistake in it; zod lets the throw out of safeParse: it left an embedded run
 * open for good, and failed a Temporal run's workflow task over and over), a thrown value without usable text.
 */
const test = contractSuite("mistakes in a workflow's own code");

const refinementThrew = (where: string) => `(root): the schema threw SyntaxError: the ${where} schema's refinement threw`;

async function traceSteps(api: Parameters<typeof http>[0], workflowId: string, runId: string): Promise<{ name: string; attempt: number; error: { name: string } | null }[]> {
  const response = await http(api, 'GET', `${wf(workflowId, runId)}/trace-log`);
  expectStatus(response, 200, 'trace log');
  return response.body.data.steps;
}

test('inputSchema throws: the run fails with ValidationError naming what the schema threw', async ({ api }) => {
  const result = await runAndWait(api, { workflowName: 'schema_throws', workflowId: uniqueId('os-input'), input: { throwIn: 'input' } });
  assert.is(result.status, 'failed');
  assert.equal(result.error, { name: 'ValidationError', message: `Invalid input for workflow schema_throws: ${refinementThrew('input')}` });
  assert.equal(result.input, { throwIn: 'input' }, 'the input is kept as given');
});

test('outputSchema throws: the run fails with OutputValidationError', async ({ api }) => {
  const result = await runAndWait(api, { workflowName: 'schema_throws', workflowId: uniqueId('os-output'), input: { throwIn: 'output' } });
  assert.is(result.status, 'failed');
  assert.equal(result.error, { name: 'OutputValidationError', message: `Invalid output of workflow schema_throws: ${refinementThrew('output')}` });
});

test("a step's inputSchema throws: StepInputValidationError, not retried", async ({ api }) => {
  const result = await runAndWait(api, { workflowName: 'schema_throws', workflowId: uniqueId('os-step'), input: { throwIn: 'step' } });
  assert.is(result.status, 'failed');
  assert.equal(
    { name: result.error.name, message: result.error.message, retryable: result.error.retryable },
    { name: 'StepInputValidationError', message: `Invalid input for step checked_by_throwing_schema: ${refinementThrew('step')}`, retryable: false },
  );
  const steps = await traceSteps(api, result.workflowId, result.runId);
  assert.equal(steps.map((step) => [step.name, step.attempt, step.error?.name]), [['checked_by_throwing_schema', 1, 'StepInputValidationError']], 'one attempt');
});

test('feedbackSchema throws on a reply the published schema takes: the wait fails with FeedbackValidationError', async ({ api }) => {
  const { workflowId, runId } = await start(api, 'schema_throws', { throwIn: 'feedback' }, uniqueId('os-feedback'));
  // Published as JSON Schema the refinement is not there: the API takes the reply; the run's own schema throws on it.
  expectStatus(await http(api, 'POST', '/workflow/feedback', { json: { workflowId, payload: { throwIn: 'feedback' } } }), 200);
  await waitUntil(api, workflowId, 'failed', runId);
  const result = (await http(api, 'GET', `${wf(workflowId, runId)}/result`)).body;
  assert.equal(result.error, { name: 'FeedbackValidationError', message: `Invalid feedback for workflow schema_throws: ${refinementThrew('feedback')}` });
});

test('a schema that throws only for some values leaves the others alone', async ({ api }) => {
  const result = await runAndWait(api, { workflowName: 'schema_throws', workflowId: uniqueId('os-none'), input: { throwIn: 'nowhere' } });
  assert.is(result.status, 'completed');
  assert.equal(result.output, { throwIn: 'nowhere' });
  assert.is((await statusOf(api, result.workflowId)).body.status, 'completed');
});

for (const inStep of [false, true]) {
  test(`a value without usable text thrown ${inStep ? 'by a step' : 'by the workflow code'}: the run fails, its name and message text`, async ({ api }) => {

    for (const [kind, failure] of Object.entries(ODD_THROWN_AS)) {
      const result = await runAndWait(api, { workflowName: 'throws_odd_value', workflowId: uniqueId('om-odd'), input: { kind, inStep } });
      assert.is(result.status, 'failed', kind);
      assert.equal({ name: result.error.name, message: result.error.message }, failure, kind);
      if (inStep) assert.is(result.error.activityType, 'throws_odd_value#throw_odd_value', kind);
    }
  });
}

test('ctx and its calls misused (child ids and catalogs, inputs JSON writes as nothing, a webhook url): a TypeError ends the run, never a run left open', async ({ api }) => {
  const longParentId = `om-long-${'x'.repeat(990)}`;
  const expected = (workflowId: string): Record<(typeof CTX_MISTAKES)[number], { name: string; message: string }> => ({
    'child id empty': { name: 'TypeError', message: 'executeChild: workflowId must not be empty' },
    'child default id too long': {
      name: 'TypeError',
      message: "executeChild: workflowId must be at most 1000 characters (the default id, made of the parent's id and the child's name: give one in options.workflowId)",
    },
    'child catalog empty': { name: 'TypeError', message: `executeChild: catalog must be a non-empty string of at most 1000 characters (leave it out for the parent's), got ""` },
    'child catalog not a string': { name: 'TypeError', message: "executeChild: catalog must be a non-empty string of at most 1000 characters (leave it out for the parent's), got number" },
    'child input a function': { name: 'TypeError', message: `The input of child workflow echo (${workflowId}/echo-1) must be a JSON value, got a function` },
    'child input a BigInt': { name: 'TypeError', message: 'Do not know how to serialize a BigInt' },
    'step input a function': { name: 'TypeError', message: 'The input of step echo_step must be a JSON value, got a function' },
    'step output a function': { name: 'StepOutputValidationError', message: 'Output of step returns_function is not JSON: JSON has no function' },
    'continue with a function': { name: 'TypeError', message: 'The input of the run workflow misuses_ctx continues as must be a JSON value, got a function' },
    'webhook url not http': { name: 'TypeError', message: 'waitForWebhook: url must be an http or https URL, got "ftp://127.0.0.1/drop"' },
    'nonCancellable not a function': { name: 'TypeError', message: 'nonCancellable: expected a function to run shielded from a stop, got number' },
  });
  for (const mistake of CTX_MISTAKES) {
    const workflowId = mistake === 'child default id too long' ? longParentId : uniqueId('om-ctx');
    const result = await runAndWait(api, { workflowName: 'misuses_ctx', workflowId, input: { mistake } });
    assert.is(result.status, 'failed', mistake);
    assert.equal({ name: result.error.name, message: result.error.message }, expected(workflowId)[mistake], mistake);
    if (mistake === 'step output a function') {
      assert.equal([result.error.retryable, result.error.activityType], [false, 'misuses_ctx#returns_function'], 'not retried');
    }
    const children = (await http(api, 'GET', `/workflow/runs?workflowName=echo&limit=1000`)).body.runs.filter((run: { workflowId: string }) => run.workflowId.startsWith(`${workflowId}/`));
    assert.equal(children, [], `${mistake}: no child started`);
  }
});

test.run();
