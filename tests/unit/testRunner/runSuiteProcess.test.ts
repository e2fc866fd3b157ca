// The runner's guard against a hung suite: a real child process (and the grandchild it started) ended at the limit.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runSuiteProcess } from '../../../scripts/testRunner/index.mjs';
import { eventually } from '../../support/eventually.js';

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
    args: ['-e', "process.stdout.write('\\u001b[32mgreen\\u001b[39m\\n'); process.exit(3)"],
    cwd: process.cwd(),
    env: process.env,
    echo: false,
    timeLimitMs: 30_000,
  });
  assert.equal(outcome, { code: 3, output: 'green\n' });
});

test('a suite killed by a signal says which (an out-of-memory kill leaves no word of its own)', async () => {
  const outcome = await runSuiteProcess({
    command: process.execPath,
    args: ['-e', "process.stdout.write('  UI: the page  • •'); process.kill(process.pid, 'SIGKILL')"],
    cwd: process.cwd(),
    env: process.env,
    echo: false,
    timeLimitMs: 30_000,
  });
  assert.equal(outcome, { code: 1, signal: 'SIGKILL', output: '  UI: the page  • •' });
});

test('a suite that cannot be started is a failure with the reason, not an exception that kills the runner', async () => {
  const outcome = await runSuiteProcess({ command: '/nonexistent/uvu', args: [], cwd: process.cwd(), env: process.env, echo: false, timeLimitMs: 5_000 });
  assert.is(outcome.code, 1);
  assert.match(outcome.stopped ?? '', /^could not be started \(spawn \/nonexistent\/uvu ENOENT\)$/);
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
  const outcome = await runSuiteProcess({ command: process.execPath, args: ['-e', script], cwd: process.cwd(), env: process.env, echo: false, timeLimitMs: 1_000 });
  assert.is(outcome.stopped, 'ran past its time limit of 1 s');
  assert.ok(Date.now() - startedAt < 10_000, 'ended by SIGTERM, well before the SIGKILL grace');
  assert.match(outcome.output, /ran past its time limit of 1 s: ending it/);
  const grandchild = Number(/grandchild (\d+)/.exec(outcome.output)?.[1]);
  assert.ok(grandchild > 0, outcome.output);
  // Waits at most 5 s; the assertion below names what failed.
  await eventually('the grandchild to end', () => !isAlive(grandchild), { timeoutMs: 5_000, intervalMs: 50 }).catch(() => undefined);
  assert.not.ok(isAlive(grandchild), 'the grandchild was ended with the suite');
});

test('a suite that does not exit once uvu has printed its summary is ended soon after, not at its time limit', async () => {
  // What a test that leaves a poller or a server running does: the summary, then a process that stays.
  const script = "console.log('\\u001b[32m  Total:     1\\n  Passed:    1\\n  Skipped:   0\\n  Duration:  5ms\\u001b[39m'); setInterval(() => {}, 1000);";
  const startedAt = Date.now();
  const outcome = await runSuiteProcess({
    command: process.execPath,
    args: ['-e', script],
    cwd: process.cwd(),
    env: process.env,
    echo: false,
    timeLimitMs: 60_000,
    exitAfterSummaryMs: 500,
  });
  assert.is(outcome.stopped, 'did not exit within 1 s of its summary (a handle left open)');
  assert.ok(Date.now() - startedAt < 10_000, `ended after ${Date.now() - startedAt} ms`);
});

test.run();
