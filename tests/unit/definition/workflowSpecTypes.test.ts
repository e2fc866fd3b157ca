import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/*
 * workflow()'s type says what its runtime says (tests/unit/definition.test.ts): typecheck/workflowSpec.ts holds
 * definitions without a description (accepted) and without a schema (each marked `@ts-expect-error`). tsc compiles
 * that file alone (its own small tsconfig), as a user's project would.
 */
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const project = fileURLToPath(new URL('./typecheck/tsconfig.json', import.meta.url));

test('tsc: a workflow without a description compiles; one without an input or output schema does not', async () => {
  const outcome = await new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [tsc, '-p', project], { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
  assert.is(outcome.output.trim(), '', 'tsc reports nothing');
  assert.is(outcome.code, 0);
});

test.run();
