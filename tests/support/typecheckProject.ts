import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * tsc on one small project (a fixture's own tsconfig.json), as a user's project would compile it: its exit code and
 * everything it printed. Type tests keep their wrong uses marked `@ts-expect-error`, so a clean compile is the pass.
 */
export function typecheckProject(tsconfigPath: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [tsc, '-p', tsconfigPath], { timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}
