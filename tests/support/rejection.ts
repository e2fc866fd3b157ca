import * as assert from 'uvu/assert';
import type { FlowgateError } from '../../core/domain/errors.js';

/**
 * What `promise` rejects with; the test fails when it resolves. Typed as the core's FlowgateError, what most callers
 * expect (it is an Error, so a caller that reads only `name` and `message` of any error uses it as well).
 */
export async function rejection(promise: Promise<unknown>): Promise<FlowgateError> {
  try {
    await promise;
  } catch (error) {
    return error as FlowgateError;
  }
  throw new Error('expected a rejection');
}

/** What `promise` rejects with, which must be a ValidationError. */
export async function validationError(promise: Promise<unknown>): Promise<FlowgateError> {
  try {
    await promise;
  } catch (error) {
    assert.is((error as FlowgateError).name, 'ValidationError');
    return error as FlowgateError;
  }
  throw new Error('expected a ValidationError');
}
