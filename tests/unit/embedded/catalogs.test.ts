import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow } from '../../../core/definition/index.js';
import { validateWorkflowInput } from '../../../core/validation/inputValidator.js';
import { harness } from './support.js';

const invoice = workflow({
  name: 'invoice',
  description: 'Bills a customer',
  inputSchema: z.object({ amount: z.number().default(0), when: z.date().optional() }),
  outputSchema: z.object({ id: z.string() }),
  fn: async () => ({ id: 'inv-1' }),
});
const refund = workflow({ name: 'refund', description: 'Refunds', inputSchema: z.object({}), outputSchema: z.unknown(), fn: async () => null });

test('describeCatalog publishes names, descriptions and JSON Schemas (input side for the input)', async () => {
  const h = harness([invoice]);
  const catalog = await h.engine.describeCatalog('main');
  assert.is(catalog?.name, 'main');
  assert.is(catalog?.available, true);
  const [type] = catalog?.workflows ?? [];
  assert.is(type?.name, 'invoice');
  assert.is(type?.description, 'Bills a customer');
  const input = type?.inputSchema as { properties: Record<string, unknown>; required?: string[] };
  assert.ok(input.properties.amount);
  assert.equal(input.required ?? [], [], 'a defaulted field is optional on the input side');
  assert.equal(input.properties.when, {}, 'unrepresentable types become "any"');
  assert.equal((type?.outputSchema as { required: string[] }).required, ['id']);
  assert.ok(Object.isFrozen(type?.inputSchema), 'shared schemas cannot be mutated by callers');
  const again = await h.engine.describeCatalog('main');
  assert.is(again?.workflows[0]?.inputSchema, type?.inputSchema, 'the same schema object every call (the core caches validators by it)');
  assert.is(again?.workflows[0]?.outputSchema, type?.outputSchema);
  validateWorkflowInput('invoice', type!.inputSchema, { amount: 3 });
  assert.throws(() => validateWorkflowInput('invoice', type!.inputSchema, { amount: 'three' }), /input schema of workflow "invoice"/);
  h.engine.registerWorker({ catalog: 'copy', workflows: [invoice] });
  const copy = await h.engine.describeCatalog('copy');
  assert.is(copy?.workflows[0]?.inputSchema, type?.inputSchema, 'converted once per definition, not per worker');
  assert.is(await h.engine.describeCatalog('never-registered'), undefined);
  h.close();
});

test('a catalog whose workers all stopped is known but unavailable, and keeps its last workflows', async () => {
  const h = harness([invoice]);
  const first = h.engine.registerWorker({ catalog: 'billing', workflows: [invoice, refund] });
  const second = h.engine.registerWorker({ catalog: 'billing', workflows: [invoice] });
  first.stop();
  let billing = await h.engine.describeCatalog('billing');
  assert.equal(billing?.workflows.map((w) => w.name), ['invoice'], 'only what live workers serve');
  assert.is(billing?.available, true);
  second.stop();
  billing = await h.engine.describeCatalog('billing');
  assert.is(billing?.available, false);
  assert.equal(billing?.workflows.map((w) => w.name), ['invoice']);
  assert.equal(await h.engine.catalogsWithWorkflow('invoice'), ['main', 'billing']);
  assert.equal(await h.engine.catalogsWithWorkflow('refund'), []);
  assert.equal(await h.engine.catalogsWithWorkflow('nothing'), []);
  h.close();
});

test('registerWorker checks what it is given', () => {
  const h = harness([]);
  assert.throws(() => h.engine.registerWorker({ catalog: '', workflows: [] }), /catalog must be a non-empty string/);
  assert.throws(() => h.engine.registerWorker({ catalog: 'x', workflows: [{} as typeof invoice] }), /only workflow\(\) definitions/);
  assert.throws(() => h.engine.registerWorker({ catalog: 'x', workflows: [invoice, invoice] }), /"invoice" is listed twice/);
  h.close();
});

test.run();
