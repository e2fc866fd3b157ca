import type { CliContext } from './command.js';
import { ownVersion } from './version.js';
import { runCli } from './run.js';
import { EXIT_FAILURE } from './exitCodes.js';

/**
 * Runs the command line of this process with the process as its context, then exits with its code. `script` is the
 * `flowgate` executable's file (main.ts), which `flowgate dev` starts again for its worker and API.
 */
export async function runCliProcess(script: string): Promise<void> {
  endQuietlyWhenStdoutCloses();
  const context: CliContext = {
    env: process.env,
    stdout: (text) => void process.stdout.write(text),
    stderr: (text) => void process.stderr.write(text),
    entry: { execPath: process.execPath, execArgv: process.execArgv, script },
    version: ownVersion(),
    readStdin: async () => {
      let text = '';
      for await (const chunk of process.stdin) text += String(chunk);
      return text;
    },
    stdoutIsTTY: process.stdout.isTTY === true,
    ...(process.stdout.columns ? { terminalColumns: process.stdout.columns } : {}),
  };

  // Exit once the command is done (a server: once it has shut down), whatever handle a library may still hold open;
  // after what was written to stdout and stderr is flushed (pipes are asynchronous on some platforms).
  const code = await runCli(process.argv.slice(2), context);
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
}

/**
 * Whoever reads stdout may stop before the command is done (`flowgate follow ID | head -n 1`): the next write fails
 * with EPIPE. That is the reader's choice, not a failure: the process ends at once, quietly, exit 0. Another write
 * error of stdout is one line on stderr, exit 1. An error writing stderr has nowhere to be told and is let be.
 */
function endQuietlyWhenStdoutCloses(): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') process.exit(0);
    process.stderr.write(`flowgate: cannot write to standard output (${error.code ?? error.message})\n`, () => process.exit(EXIT_FAILURE));
  });
  process.stderr.on('error', () => {});
}
