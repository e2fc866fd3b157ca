import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { typecheckProject } from '../../support/typecheckProject.js';

/*
 * workflow()'s type says what its runtime says (tests/unit/definition.test.ts): typecheck/workflowSpec.ts holds
 * definitions without a description (accepted) and without a schema (each marked `@ts-expect-error`). tsc compiles
 * that file alone (its own small tsconfig), as a user's project would.
 */
const project = fileURLToPath(new URL('./typecheck/tsconfig.json', import.meta.url));

test('tsc: a workflow without a description compiles; one without an input or output schema does not', async () => {
  const outcome = await typecheckProject(project);
  assert.is(outcome.output.trim(), '', 'tsc reports nothing');
  assert.is(outcome.code, 0);
});

test.run();
