#!/usr/bin/env node
// `npm run test:unit` and `npm run test:contract`: one suite's files split over a few uvu processes run side by side
// (most of a contract test's time is spent waiting on timers and sockets), without provisioning and without coverage:
// the loop to run while changing code. Each process's output is printed as one block when it ends, then one line
// `N passed, N failed`; the exit code is non-zero on any failure.
//   node scripts/testQuick.mjs <dir> [--shards N]   (FLOWGATE_TEST_ENGINE and other variables pass through)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_PATTERN, formatDuration, jobsOf, runSuiteProcess, suiteCounts, suiteLine, testFilesOf, totalLine } from './testRunner/index.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const [dir, ...rest] = process.argv.slice(2);
if (!dir) {
  process.stderr.write('usage: node scripts/testQuick.mjs <dir> [--shards N]\n');
  process.exit(2);
}
const shardsAt = rest.indexOf('--shards');
const shards = shardsAt >= 0 ? Math.max(1, Number(rest[shardsAt + 1]) || 1) : 3;
/** A hung suite is ended: the loop must always come back. */
const TIME_LIMIT_MS = 10 * 60_000;

const startedAt = Date.now();
const jobs = jobsOf({ name: dir, dir, shards }, testFilesOf(join(root, dir), DEFAULT_PATTERN));
const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = await Promise.all(
  jobs.map(async (job) => {
    const jobStartedAt = Date.now();
    const outcome = await runSuiteProcess({
      command: process.execPath,
      args: ['--import', 'tsx', join(root, 'node_modules', 'uvu', 'bin.js'), job.dir, job.pattern],
      cwd: root,
      env: process.env,
      timeLimitMs: TIME_LIMIT_MS,
      echo: false,
    });
    const counts = suiteCounts(outcome);
    totals.passed += counts.passed;
    totals.failed += counts.failed;
    totals.skipped += counts.skipped;
    process.stdout.write(`\n=== ${job.name} ===\n${outcome.output}`);
    return suiteLine(job.name, counts, Date.now() - jobStartedAt, outcome.stopped ? `(ended: ${outcome.stopped})` : undefined);
  }),
);
process.stdout.write(`\n${lines.join('\n')}\nwhole run: ${formatDuration(Date.now() - startedAt)}\n${totalLine(totals)}\n`);
process.exit(totals.failed === 0 ? 0 : 1);
