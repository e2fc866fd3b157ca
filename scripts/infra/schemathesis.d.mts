// Types for schemathesis.mjs (plain JavaScript, like the rest of scripts/infra), for the TypeScript tests.

export type Log = (line: string) => void;

export const SCHEMATHESIS_VERSION: string;
/** ~/.cache/flowgate/schemathesis-<version>: the Python venv schemathesis is installed in. */
export function schemathesisVenvDir(): string;
/** `SCHEMATHESIS_CLI` when set, else the cached venv's `st`, else installed there now (python3 -m venv + pip). */
export function ensureSchemathesis(options?: { log?: Log; env?: NodeJS.ProcessEnv }): Promise<string>;
/** Runs `st` (killed with this process, and after `timeoutMs`) and collects its output. */
export function runSchemathesis(
  stPath: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; signal: NodeJS.Signals | null; output: string; timedOut: boolean }>;
