// The runner's guard against a hung suite: a real child process (and the grandchild it started) ended at the limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSuiteProcess } from '../../../scripts/testRunner/index.mjs';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

test('a suite that finishes gives its exit code and its output without colours', async () => {
  const outcome = await runSuiteProcess({
    command: process.execPath,
    // Not a uvu summary: this output is echoed into the unit suite's own, which the runner reads.
    args: ['-e', "process.stdout.write('\\u001b[32mgreen\\u001b[39m\\n'); process.exit(3)"],
    cwd: process.cwd(),
    env: process.env,
    timeLimitMs: 30_000,
  });
  assert.equal(outcome, { code: 3, output: 'green\n', timedOut: false });
});

test('a suite past its time limit is ended with everything it started', async () => {
  // The "suite" starts a grandchild that ignores its parent's death, as a leaked server would, and never ends.
  const script = `
    const { spawn } = require('node:child_process');
    const grandchild = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    console.log('grandchild ' + grandchild.pid);
    setInterval(() => {}, 1000);
  `;
  const startedAt = Date.now();
  const outcome = await runSuiteProcess({ command: process.execPath, args: ['-e', script], cwd: process.cwd(), env: process.env, timeLimitMs: 1_000 });
  assert.ok(outcome.timedOut);
  assert.ok(Date.now() - startedAt < 10_000, 'ended by SIGTERM, well before the SIGKILL grace');
  assert.match(outcome.output, /past its time limit/);
  const grandchild = Number(/grandchild (\d+)/.exec(outcome.output)?.[1]);
  assert.ok(grandchild > 0, outcome.output);
  const deadline = Date.now() + 5_000;
  while (isAlive(grandchild) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.not.ok(isAlive(grandchild), 'the grandchild was ended with the suite');
});

test.run();
