import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { workflow, step, evaluator, isActivity, NonRetryableError, StepFailedError } from '../../core/definition/index.js';
import { serializeFailure, failureToError } from '../../core/definition/failures.js';
import { activityTypeOf } from '../../core/definition/names.js';
import { schemaVerdict } from '../../core/definition/runRules.js';
import { createTestEnvironment } from '../../composition/testing/index.js';

test('schemaVerdict: a schema that throws refuses the value, naming what it threw, whatever was thrown', () => {
  const refines = (thrown: () => unknown) => z.string().refine(() => { throw thrown(); });
  assert.equal(schemaVerdict(z.string(), 'a'), { success: true, data: 'a' });
  const refused = schemaVerdict(z.string(), 1);
  assert.is(refused.success, false);
  assert.equal(!refused.success && refused.issues.map((issue) => issue.path), [[]], "zod's own issues, as zod gives them");
  assert.equal(schemaVerdict(refines(() => new SyntaxError('bad')), 'a'), { success: false, issues: [{ path: [], message: 'the schema threw SyntaxError: bad' }] });
  assert.equal(schemaVerdict(refines(() => 'a string'), 'a'), { success: false, issues: [{ path: [], message: 'the schema threw Error: a string' }] });
  assert.equal(schemaVerdict(refines(() => Object.create(null)), 'a'), { success: false, issues: [{ path: [], message: 'the schema threw Error: [object Object]' }] });
  const transformThrows = z.object({ n: z.number() }).transform(() => { throw new RangeError('too big'); });
  assert.equal(schemaVerdict(transformThrows, { n: 1 }), { success: false, issues: [{ path: [], message: 'the schema threw RangeError: too big' }] });
});

test('a step outside any run is a plain async function with schema checks', async () => {
  const half = step({ name: 'half', inputSchema: z.number(), outputSchema: z.number().int(), fn: async (n: number) => n / 2 });
  assert.ok(isActivity(half));
  assert.is(half.definition.kind, 'step');
  assert.is(await half(4), 2);
  await half('x' as unknown as number).then(() => assert.unreachable(), (error: Error) => {
    assert.is(error.name, 'StepInputValidationError');
    assert.is((error as NonRetryableError).nonRetryable, true);
  });
  await half(3).then(() => assert.unreachable(), (error: Error) => assert.is(error.name, 'StepOutputValidationError'));
});

test('evaluators are activities of kind evaluator', () => {
  assert.is(evaluator({ name: 'judge', fn: async () => 1 }).definition.kind, 'evaluator');
});

test('bad definitions are refused at definition time with the name in the message', () => {
  assert.throws(() => step({ name: 'has#hash', fn: async () => 1 }), /step name "has#hash" is invalid/);
  assert.throws(() => step({ name: 'ok', fn: async () => 1, timeoutMs: 0 }), /timeoutMs/);
  assert.throws(() => step({ name: 'ok', fn: async () => 1, timeoutMs: Number.POSITIVE_INFINITY }), /timeoutMs must be a finite positive number, got Infinity/);
  assert.throws(
    () => workflow({ name: 'w', description: '', inputSchema: z.object({}), outputSchema: z.object({}), fn: async () => ({}), runTimeoutMs: -1 }),
    /runTimeoutMs/,
  );
  assert.throws(() => workflow({ name: '', description: '', inputSchema: z.object({}), outputSchema: z.object({}), fn: async () => ({}) }), /invalid/);
});

test('workflow(): a description is optional (published as \'\'); the input and output schemas are required zod schemas', async () => {
  const fn = async () => ({});
  const bare = workflow({ name: 'no_description', inputSchema: z.object({}), outputSchema: z.object({}), fn });
  assert.is(bare.description, '');
  assert.is(workflow({ name: 'described', description: 'Does a thing', inputSchema: z.object({}), outputSchema: z.object({}), fn }).description, 'Does a thing');
  const required = /^workflow w: inputSchema and outputSchema are required zod schemas \(the input and output are validated with them, and published\)$/;
  // As JavaScript callers (or a cast) can write them: the types refuse these (typecheck/workflowSpec.ts).
  const loose = workflow as unknown as (spec: Record<string, unknown>) => unknown;
  assert.throws(() => loose({ name: 'w', outputSchema: z.object({}), fn }), required);
  assert.throws(() => loose({ name: 'w', inputSchema: z.object({}), fn }), required);
  assert.throws(() => loose({ name: 'w', inputSchema: { type: 'object' }, outputSchema: z.object({}), fn }), required);
  assert.throws(() => loose({ name: 'w', description: 42, inputSchema: z.object({}), outputSchema: z.object({}), fn }), /^workflow w: description must be a string when given$/);
  // What GET /workflow/list publishes for it.
  const env = await createTestEnvironment({ workflows: [bare] });
  try {
    const { workflows } = await env.api.listWorkflows(undefined);
    assert.equal(workflows.map(({ name, description }) => ({ name, description })), [{ name: 'no_description', description: '' }]);
  } finally {
    await env.close();
  }
});

test('failures serialise to name and message, with the activity type of a step and a bounded cause chain', () => {
  const original = serializeFailure(new TypeError('bad', { cause: new Error('root') }));
  assert.equal(original, { name: 'TypeError', message: 'bad', cause: { name: 'Error', message: 'root' } });
  const stepFailure = serializeFailure(new StepFailedError(activityTypeOf('w', 's'), { name: 'X', message: 'm', retryable: false }));
  assert.equal(stepFailure, { name: 'X', message: 'm', retryable: false, activityType: 'w#s' });
  assert.equal(serializeFailure(new NonRetryableError('stop')), { name: 'NonRetryableError', message: 'stop', retryable: false });
  assert.equal(serializeFailure('plain'), { name: 'Error', message: 'plain' });
  assert.equal(serializeFailure({ name: 'Shaped', message: 'like an error' }), { name: 'Shaped', message: 'like an error' });
  let deep: Error = new Error('0');
  for (let i = 1; i < 20; i += 1) deep = new Error(String(i), { cause: deep });
  let depth = 0;
  for (let failure = serializeFailure(deep); failure.cause; failure = failure.cause) depth += 1;
  assert.ok(depth <= 5);
  const rebuilt = failureToError({ name: 'Custom', message: 'again', retryable: false });
  assert.is(rebuilt.name, 'Custom');
  assert.is((rebuilt as Error & { nonRetryable?: boolean }).nonRetryable, true);
});

test.run();
