import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { fileURLToPath } from 'node:url';
import { typecheckProject } from '../support/typecheckProject.js';

/*
 * What workflow() infers for workflow code: definitionTypes/feedback.ts holds typed uses and wrong ones (each marked
 * `@ts-expect-error`, so a wrong use that compiles fails the build). tsc compiles that file alone (its own small
 * tsconfig), as a user's project would.
 */
const project = fileURLToPath(new URL('./definitionTypes/tsconfig.json', import.meta.url));

test('tsc: a feedbackSchema types the reply of ctx.waitForWebhook()', async () => {
  const outcome = await typecheckProject(project);
  assert.is(outcome.output.trim(), '', 'tsc reports nothing');
  assert.is(outcome.code, 0);
});

test.run();
