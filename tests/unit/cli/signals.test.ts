import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/*
 * A long-running command (serve, worker, dev) stops gracefully on SIGINT or SIGTERM; a second signal while it shuts
 * down ends it at once, and the access log's held lines still reach its output.
 */

test('a second SIGINT while shutting down exits 130 at once, with the lines logged before it written', async () => {
  const signals = fileURLToPath(new URL('../../../composition/cli/signals.ts', import.meta.url));
  const logger = fileURLToPath(new URL('../../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { untilSignal } from ${JSON.stringify(signals)};
    import { PinoLogger } from ${JSON.stringify(logger)};
    const logger = new PinoLogger();
    const signalled = untilSignal();
    // What a server's socket does for serve: keeps the process alive until the signal comes (a listener does not,
    // and a loaded machine may deliver the signal after the loop would otherwise have emptied: exit 13).
    setInterval(() => {}, 1000);
    process.stderr.write('ready\\n');
    const signal = await signalled;
    // A line the writer holds (a quiet process writes it 250 ms later), then a shutdown that takes its time.
    logger.info('shutting down', { signal });
    process.stderr.write('first\\n');`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (code, signal) => resolve([code, signal])));
    const outputEnded = new Promise((resolve) => child.stdout.once('close', resolve));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
      if (chunk.includes('ready')) child.kill('SIGINT');
      if (chunk.includes('first')) child.kill('SIGINT');
    });
    assert.equal(await exited, [130, null], stderr);
    await outputEnded;
    assert.match(output, /"msg":"shutting down"/);
  } finally {
    child.kill('SIGKILL');
  }
});

test.run();
