import * as assert from 'uvu/assert';
import { z } from 'zod';
import { contractSuite, expectError, expectStatus, http, keys } from '../support/contract.js';

/** GET /workflow/list */
const test = contractSuite('GET /workflow/list');

/** What a catalog publishes for a zod schema (both engines' catalogs make it with these options). */
const published = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { unrepresentable: 'any', io });
const EMPTY_OBJECT_INPUT = published(z.object({}).strict(), 'input');
const OK_OUTPUT = published(z.object({ ok: z.boolean() }), 'output');

test('the default catalog: {workflows: [{name, description, inputSchema, outputSchema, feedbackSchema?}]} with its workflows only', async ({ api }) => {
  const response = await http(api, 'GET', '/workflow/list');
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['workflows']);
  const names = response.body.workflows.map((workflow: { name: string }) => workflow.name);
  for (const name of ['echo', 'arithmetic', 'fails_in_step', 'sleeper', 'awaits_feedback', 'countdown', 'parent']) {
    assert.ok(names.includes(name), `${name} listed`);
  }
  assert.not.ok(names.includes('other_only'), 'workflows of other catalogs are not listed');
  assert.not.ok(names.includes('idle_only'));
  assert.is(new Set(names).size, names.length, 'names are unique');
  for (const workflow of response.body.workflows) {
    // feedbackSchema only for a workflow that declares one (tests/contract/feedbackSchema.test.ts).
    const declared = ['awaits_approval', 'schema_throws'].includes(workflow.name) ? ['feedbackSchema'] : [];
    assert.equal(keys(workflow), [...declared, 'description', 'inputSchema', 'name', 'outputSchema'].sort());
    assert.type(workflow.description, 'string');
    assert.ok(typeof workflow.inputSchema === 'object' || typeof workflow.inputSchema === 'boolean');
  }
  const echo = response.body.workflows.find((workflow: { name: string }) => workflow.name === 'echo');
  assert.is(echo.description, 'Returns its input through one step');
});

test('each entry carries the input and output JSON Schemas its catalog published, as the start validates them', async ({ api }) => {
  const { body } = await http(api, 'GET', '/workflow/list');
  const byName = new Map(body.workflows.map((workflow: { name: string }) => [workflow.name, workflow]));
  const echo = byName.get('echo') as { inputSchema: unknown; outputSchema: unknown };
  assert.equal(echo.inputSchema, published(z.object({ message: z.string() }).strict(), 'input'));
  assert.equal(echo.outputSchema, published(z.object({ message: z.string() }), 'output'));
  const sleeper = byName.get('sleeper') as { inputSchema: { properties: { ms: unknown }; required: string[] } };
  assert.equal(sleeper.inputSchema.properties.ms, { type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER });
  assert.equal(sleeper.inputSchema.required, ['ms']);
  // The schema is the one the start checks input against: what it forbids is a 400.
  expectError(await http(api, 'POST', '/workflow', { json: { workflowName: 'sleeper', input: { ms: -1 } } }), 400, 'ValidationError');
});

test('?catalog= lists that catalog', async ({ api }) => {
  const response = await http(api, 'GET', '/workflow/list?catalog=other');
  expectStatus(response, 200);
  assert.equal(response.body, {
    workflows: [{ name: 'other_only', description: 'Lives in the other catalog', inputSchema: EMPTY_OBJECT_INPUT, outputSchema: OK_OUTPUT }],
  });
  const main = await http(api, 'GET', '/workflow/list?catalog=main');
  assert.equal(main.body, (await http(api, 'GET', '/workflow/list')).body, 'main is the default catalog');
});

test('an unknown catalog: 404 CatalogNotAvailableError', async ({ api }) => {
  expectError(await http(api, 'GET', '/workflow/list?catalog=nowhere'), 404, 'CatalogNotAvailableError', { workflowId: null });
});

test('a known catalog without a worker: its workflows, or 503 with Retry-After', async ({ api }) => {
  const response = await http(api, 'GET', '/workflow/list?catalog=idle');
  if (response.status === 200) {
    assert.equal(response.body, {
      workflows: [{ name: 'idle_only', description: 'Lives in a catalog without a running worker', inputSchema: EMPTY_OBJECT_INPUT, outputSchema: OK_OUTPUT }],
    });
  } else {
    expectError(response, 503, 'CatalogNotAvailableError');
    assert.match(response.headers['retry-after'] ?? '', /^\d+$/);
  }
});

test('an empty catalog name is 400', async ({ api }) => {
  expectError(await http(api, 'GET', '/workflow/list?catalog='), 400, 'ValidationError');
});

test.run();
