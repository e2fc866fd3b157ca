import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { validateWorkflowInput } from '../../core/validation/inputValidator.js';
import { ValidationError } from '../../core/domain/errors.js';

const schema = z.toJSONSchema(z.object({ text: z.string(), count: z.number().int().min(1).optional() }).strict(), { io: 'input' });

test('valid input passes', () => {
  validateWorkflowInput('w', schema, { text: 'hi', count: 2 });
});

test('invalid input throws ValidationError with issues under input.*', () => {
  try {
    validateWorkflowInput('w', schema, { text: 3, extra: true });
    assert.unreachable('should have thrown');
  } catch (error) {
    assert.instance(error, ValidationError);
    const issues = (error as InstanceType<typeof ValidationError>).issues ?? [];
    assert.ok(issues.some((issue) => issue.path.join('.') === 'input.text'));
    assert.ok(issues.some((issue) => issue.code === 'unrecognized_keys'));
    assert.match((error as Error).message, /workflow "w"/);
  }
});

test('boolean schemas: true accepts anything, false nothing', () => {
  validateWorkflowInput('w', true, { anything: 1 });
  assert.throws(() => validateWorkflowInput('w', false, {}), (error: unknown) => error instanceof ValidationError);
});

test.run();
