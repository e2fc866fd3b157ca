import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * `flowgate ARGS` from source, as a user at a terminal runs it with FLOWGATE_URL and FLOWGATE_TOKEN set. `env` adds or
 * overrides variables (undefined removes one); `stdin` is what the command reads (nothing by default).
 */
export function runFlowgate(
  baseUrl: string,
  token: string,
  args: readonly string[],
  options: { env?: Record<string, string | undefined>; stdin?: string } = {},
): Promise<CliOutcome> {
  const env: Record<string, string | undefined> = { ...process.env, FLOWGATE_URL: baseUrl, FLOWGATE_TOKEN: token, ...options.env };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'composition/cli/main.ts', ...args], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.stdin ?? '');
  });
}
