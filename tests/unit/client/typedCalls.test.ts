import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { typecheckProject } from '../../support/typecheckProject.js';

/*
 * flowgate/client is typed by the caller's workflow definitions: typecheck/typedCalls.ts holds calls with a wrong
 * input (each marked `@ts-expect-error`, so a call that compiles fails the build) and assertions on the output types.
 * tsc compiles that file alone (its own small tsconfig), as a user's project would.
 */
const project = fileURLToPath(new URL('./typecheck/tsconfig.json', import.meta.url));

test('tsc: definition-typed calls reject a wrong input and type the output', async () => {
  const outcome = await typecheckProject(project);
  assert.is(outcome.output.trim(), '', 'tsc reports nothing');
  assert.is(outcome.code, 0);
});

test.run();
