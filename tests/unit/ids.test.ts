import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { workflowIdProblem, runIdProblem, assertWorkflowId } from '../../core/domain/ids.js';
import { ValidationError } from '../../core/domain/errors.js';
import { normaliseStatusFilter } from '../../core/domain/status.js';

test('workflow ids: 1 to 1000 characters without control characters', () => {
  assert.is(workflowIdProblem('order 17/ü'), undefined);
  assert.ok(workflowIdProblem(''));
  assert.ok(workflowIdProblem('x'.repeat(1001)));
  assert.is(workflowIdProblem('x'.repeat(1000)), undefined);
  assert.ok(workflowIdProblem('a\nb'));
  assert.ok(workflowIdProblem('a\u0085b'));
  assert.throws(() => assertWorkflowId('a\u0000'), (error: unknown) => error instanceof ValidationError);
});

test('workflow ids: characters are code points, as JSON Schema counts them; unpaired surrogates are refused', () => {
  // 1000 emoji are 2000 UTF-16 code units: the document's maxLength 1000 allows them, so the rule must too.
  assert.is(workflowIdProblem('😀'.repeat(1000)), undefined);
  assert.ok(workflowIdProblem('😀'.repeat(1001)));
  assert.is(workflowIdProblem('é'.repeat(1000)), undefined);
  for (const lone of ['\ud800', 'a\udc00', '\ud83d\ud83d', '\ude00\ud83d']) assert.ok(workflowIdProblem(lone), JSON.stringify(lone));
});

test('run ids are UUIDs', () => {
  assert.is(runIdProblem('6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001'), undefined);
  assert.ok(runIdProblem('not-a-uuid'));
});

test('the status filter accepts the old spelling continued', () => {
  assert.is(normaliseStatusFilter('continued'), 'continued_as_new');
  assert.is(normaliseStatusFilter('running'), 'running');
  assert.is(normaliseStatusFilter('nope'), undefined);
});

test.run();
