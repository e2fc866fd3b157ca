#!/usr/bin/env node
// `npm test` (and `npm run test:long`, which adds the long suites): provisioning (Go builds, schemathesis, the pinned
// Node releases), every suite in its own uvu process (with V8 coverage) on its Node (24, or 22 for the suites that say
// so) within a time limit, the c8 coverage floor, a line per suite with its time, and one closing line
// `N passed, N failed` with totals over every suite. Exits non-zero on any failure.
import { mkdirSync, rmSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { delimiter, dirname, join } from 'node:path';
import { suites } from './suites.mjs';
import {
  ensureChromium,
  ensurePromtool,
  ensureNodeRuntime,
  ensureSchemathesis,
  ensureTemporalCli,
  ensureVersitygw,
  REPOSITORY_NODE_MAJOR,
  startTemporalDevServer,
} from './infra/index.mjs';
import {
  formatDuration,
  killRunningSuites,
  minutesFromEnv,
  runSuiteProcess,
  coverageMeasured,
  failureExcerpt,
  parseSummary,
  suiteCounts,
  suiteLine,
  suiteTimeLimit,
  totalLine,
} from './testRunner/index.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const coverageTemp = join(root, 'coverage', 'tmp');
const COVERAGE_FLOOR = 90;
// The slowest suite (the contract on Temporal) takes about 3 minutes here; a suite past 20 has hung.
const SUITE_LIMIT_MS = minutesFromEnv(process.env.FLOWGATE_SUITE_LIMIT_MINUTES, 20);
// CI stops the whole job at 90 minutes without a word; the runner stops first (npm ci and the coverage report fit in
// the rest), so the report is always printed.
const RUN_BUDGET_MS = minutesFromEnv(process.env.FLOWGATE_TEST_BUDGET_MINUTES, 85);
/** Failing suites whose words the closing report repeats. */
const MAX_EXCERPTS = 8;
/** The c8 report takes under a minute; it runs after the budget, in what is left of CI's time. */
const COVERAGE_LIMIT_MS = 3 * 60_000;

/** @param {string} prefix */
const logWith = (prefix) => (/** @type {string} */ line) => process.stdout.write(`[${prefix}] ${line}\n`);

/**
 * The `node` binary of each pinned Node line the suites run on, once provisioned: a suite's own `node`
 * (scripts/suites.mjs), else the repository's (24), whatever Node runs this runner.
 */
/** @type {Map<string, string>} */
const nodeBinaries = new Map();

/**
 * Builds or installs what the suites need before the first one starts (each is cached outside the repo, so this is
 * quick after the first time), so the time it takes shows on its own in the report.
 * @param {string[]} nodeVersions the Node major versions the selected suites run on
 * @returns {Promise<{ line: string, ok: boolean }[]>}
 */
async function provision(nodeVersions) {
  const log = logWith('provision');
  const timed = async (/** @type {string} */ what, /** @type {() => Promise<unknown>} */ task) => {
    const startedAt = Date.now();
    try {
      await task();
      return { line: `provision ${what}: ready (${formatDuration(Date.now() - startedAt)})`, ok: true };
    } catch (error) {
      process.stdout.write(`could not provision ${what}: ${error instanceof Error ? error.message : error}\n`);
      return { line: `provision ${what}: FAILED (${formatDuration(Date.now() - startedAt)})`, ok: false };
    }
  };
  // pip waits on the network while Go builds use the CPU: the two overlap.
  const schemathesis = timed('schemathesis', () => ensureSchemathesis({ log }));
  const runtimes = nodeVersions.map((major) =>
    timed(`Node ${major}`, async () => void nodeBinaries.set(major, await ensureNodeRuntime(major, { log }))),
  );
  const builds = [
    await timed('the Temporal CLI', () => ensureTemporalCli({ log })),
    await timed('the large-message Temporal CLI', () => ensureTemporalCli({ log, largeMessages: true })),
    await timed('the Versity S3 Gateway', () => ensureVersitygw({ log })),
    await timed('Chromium', () => ensureChromium({ log })),
    await timed('promtool', () => ensurePromtool({ log })),
  ];
  return [...builds, await schemathesis, ...(await Promise.all(runtimes))];
}

async function main() {
  const runStartedAt = Date.now();
  rmSync(join(root, 'coverage'), { recursive: true, force: true });
  mkdirSync(coverageTemp, { recursive: true });
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const lines = [];
  /** What failing suites said, repeated above the closing lines: CI shows only the end of the log. */
  /** @type {string[]} */
  const excerpts = [];

  /** @type {{ address: string, namespace: string, stop: () => Promise<void> } | undefined} */
  let temporal;
  /** @type {Error | undefined} */
  let temporalFailure;
  const stopServers = async () => {
    await temporal?.stop();
    temporal = undefined;
  };
  const report = () => {
    if (excerpts.length > 0) {
      const shown = excerpts.slice(0, MAX_EXCERPTS);
      const more = excerpts.length - shown.length;
      process.stdout.write(`\n=== what the failing suites said (the first failure, or the last lines) ===\n${shown.join('\n\n')}\n`);
      if (more > 0) process.stdout.write(`(and ${more} more failing suites, above)\n`);
    }
    lines.push(`whole run: ${formatDuration(Date.now() - runStartedAt)}`);
    process.stdout.write(`\n${lines.join('\n')}\n`);
    process.stdout.write(`${totalLine(totals)}\n`);
  };
  /** @type {NodeJS.Signals | undefined} set once the runner is told to stop: no suite starts after it. */
  let interrupted;
  const onSignal = (/** @type {NodeJS.Signals} */ signal, /** @type {number} */ exitCode) => () => {
    interrupted = signal;
    killRunningSuites();
    void stopServers().then(() => {
      totals.failed += 1;
      lines.push(`interrupted by ${signal}`);
      report();
      process.exit(exitCode);
    });
  };
  process.once('SIGINT', onSignal('SIGINT', 130));
  process.once('SIGTERM', onSignal('SIGTERM', 143));
  const budgetLeftMs = () => RUN_BUDGET_MS - (Date.now() - runStartedAt);
  const BUDGET_SPENT = `the run's time budget of ${formatDuration(RUN_BUDGET_MS)} was spent`;

  // The long suites (soak, heaviest fault tests) run under `npm run test:long` and always in CI.
  const includeLong = process.argv.includes('--long') || process.env.CI === 'true';
  const selected = suites(root).filter((candidate) => existsSync(join(root, candidate.dir)) && (includeLong || !candidate.long));
  const nodeOf = (/** @type {{ node?: string }} */ suite) => suite.node ?? REPOSITORY_NODE_MAJOR;
  const nodeVersions = [...new Set(selected.map(nodeOf))];

  process.stdout.write('\n=== provisioning: Temporal CLI builds, Versity S3 Gateway, Chromium, promtool, schemathesis, Node versions ===\n');
  // A build that never ends must not eat the budget unnoticed: past it, the suites are failed as not run.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let budgetTimer;
  const provisioned = await Promise.race([
    provision(nodeVersions),
    new Promise((resolvePromise) => {
      budgetTimer = setTimeout(() => resolvePromise(undefined), budgetLeftMs());
    }),
  ]);
  clearTimeout(budgetTimer);
  for (const { line, ok } of provisioned ?? [{ line: 'provisioning: FAILED (not done within the time budget)', ok: false }]) {
    lines.push(line);
    if (!ok) totals.failed += 1;
  }

  for (const suite of selected) {
    if (interrupted) break;
    const suiteStartedAt = Date.now();
    /** @param {import('./testRunner/summary.mjs').Counts} counts @param {string} [note] */
    const record = (counts, note) => {
      totals.passed += counts.passed;
      totals.failed += counts.failed;
      totals.skipped += counts.skipped;
      lines.push(suiteLine(suite.name, counts, Date.now() - suiteStartedAt, note));
    };
    /** Never a silent skip: a suite that cannot run fails. @param {string} why */
    const notRun = (why) => {
      process.stdout.write(`not run: ${why}\n`);
      record({ passed: 0, failed: 1, skipped: 0 }, `(not run: ${why})`);
    };
    process.stdout.write(`\n=== ${suite.name} ===\n`);
    if (budgetLeftMs() <= 0) {
      notRun(BUDGET_SPENT);
      continue;
    }
    const serverEnv = {};
    if (suite.needs === 'temporal') {
      if (!temporal && !temporalFailure) {
        try {
          // One server for every Temporal suite; the large-message build so 30 MiB results can pass (scripts/infra/README.md).
          temporal = await startTemporalDevServer({ largeMessages: true, log: logWith('temporal') });
        } catch (error) {
          temporalFailure = error instanceof Error ? error : new Error(String(error));
        }
      }
      if (!temporal) {
        notRun(`the Temporal dev server is unavailable: ${temporalFailure?.message}`);
        continue;
      }
      Object.assign(serverEnv, { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace });
    }
    // Counted after the server start, which can take a while on a loaded machine.
    const timeLimitMs = suiteTimeLimit({ suiteLimitMs: SUITE_LIMIT_MS, budgetMs: RUN_BUDGET_MS, elapsedMs: Date.now() - runStartedAt });
    if (interrupted) break;
    if (timeLimitMs === 0) {
      notRun(BUDGET_SPENT);
      continue;
    }
    const command = nodeBinaries.get(nodeOf(suite));
    if (!command) {
      notRun(`Node ${nodeOf(suite)} could not be installed`);
      continue;
    }
    // The suite's Node first on PATH: what its tests start by name (node, npm, npx, a package's bin) runs on it too.
    const path = [dirname(command), process.env.PATH].filter(Boolean).join(delimiter);
    const outcome = await runSuiteProcess({
      command,
      args: ['--import', 'tsx', join(root, 'node_modules', 'uvu', 'bin.js'), suite.dir, suite.pattern ?? '\\.test\\.ts$'],
      cwd: root,
      env: { ...process.env, PATH: path, NODE_V8_COVERAGE: coverageTemp, ...serverEnv, ...suite.env },
      timeLimitMs,
    });
    const excerpt = failureExcerpt(outcome);
    if (excerpt !== undefined) excerpts.push(`--- ${suite.name} ---\n${excerpt}`);
    const note = outcome.stopped
      ? `(ended by the runner: ${outcome.stopped})`
      : parseSummary(outcome.output) === undefined
        ? `(${outcome.signal ? `killed by ${outcome.signal}` : `exited with code ${outcome.code}`} before uvu's summary)`
        : undefined;
    record(suiteCounts(outcome), note);
  }

  // The signal handler reports and exits.
  if (interrupted) return;
  await stopServers();

  process.stdout.write('\n=== coverage (core/, adapters/) ===\n');
  const coverage = await runSuiteProcess({
    command: process.execPath,
    args: [
      join(root, 'node_modules', 'c8', 'bin', 'c8.js'),
      'report',
      '--temp-directory', coverageTemp,
      '--reporter', 'text-summary',
      '--reporter', 'lcov',
      '--include', 'core/**',
      '--include', 'adapters/**',
      '--exclude', '**/*.d.ts',
      '--check-coverage', '--lines', String(COVERAGE_FLOOR),
    ],
    cwd: root,
    env: process.env,
    timeLimitMs: COVERAGE_LIMIT_MS,
  });
  const floorMet = coverage.code === 0 && coverageMeasured(coverage.output);
  if (floorMet) totals.passed += 1;
  else totals.failed += 1;
  lines.push(`coverage floor ${COVERAGE_FLOOR}% lines: ${floorMet ? 'met' : 'NOT met'}`);
  report();
  process.exit(totals.failed === 0 ? 0 : 1);
}

main().catch((error) => {
  // Servers started by this process are killed by scripts/infra's exit hook and parent-death signal.
  process.stderr.write(`test runner crashed: ${error?.stack ?? error}\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(1);
});
