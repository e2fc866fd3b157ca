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
  DEFAULT_PATTERN,
  jobsOf,
  longestFirst,
  nextJob,
  testFilesOf,
} from './testRunner/index.mjs';

/** @typedef {import('./testRunner/schedule.mjs').Job} Job */
/**
 * @typedef {object} Slot
 * @property {number} index
 * @property {boolean} busy
 * @property {{ address: string, namespace: string, stop: () => Promise<void> }} [temporal]
 */

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const coverageTemp = join(root, 'coverage', 'tmp');
const COVERAGE_FLOOR = 90;
// The slowest suites take about 7 minutes here beside two others; a suite past 20 has hung.
const SUITE_LIMIT_MS = minutesFromEnv(process.env.FLOWGATE_SUITE_LIMIT_MINUTES, 20);
// CI stops the whole job at 90 minutes without a word; the runner stops first (npm ci and the coverage report fit in
// the rest), so the report is always printed.
const RUN_BUDGET_MS = minutesFromEnv(process.env.FLOWGATE_TEST_BUDGET_MINUTES, 85);
/** Failing suites whose words the closing report repeats. */
const MAX_EXCERPTS = 8;
/** Jobs the closing report names as the slowest. */
const SLOWEST_SHOWN = 5;
/**
 * Suites run side by side, each in its own process: three on CI's 2 cores keeps both busy, since most of a suite's
 * time is spent waiting on servers and timers (docs/testing.md). FLOWGATE_TEST_CONCURRENCY=1 runs them one by one.
 */
const CONCURRENCY = Math.max(1, Math.floor(Number(process.env.FLOWGATE_TEST_CONCURRENCY) || 3));
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

/** The `--suites REGEX` argument (case-insensitive), or every suite. @param {string[]} argv */
function suiteFilter(argv) {
  const at = argv.indexOf('--suites');
  return new RegExp(at >= 0 && argv[at + 1] ? argv[at + 1] : '', 'i');
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
  /** How long each job took: the slowest are named in the closing report. */
  /** @type {{ name: string, ms: number }[]} */
  const durations = [];

  /** Each slot runs one job at a time and owns the Temporal dev server its jobs share, started when first needed. */
  /** @type {Slot[]} */
  const slots = Array.from({ length: CONCURRENCY }, (_, index) => ({ index, busy: false }));
  const stopServers = async () => {
    await Promise.allSettled(slots.map(async (slot) => {
      const server = slot.temporal;
      slot.temporal = undefined;
      await server?.stop();
    }));
  };
  const report = () => {
    if (excerpts.length > 0) {
      const shown = excerpts.slice(0, MAX_EXCERPTS);
      const more = excerpts.length - shown.length;
      process.stdout.write(`\n=== what the failing suites said (the first failure, or the last lines) ===\n${shown.join('\n\n')}\n`);
      if (more > 0) process.stdout.write(`(and ${more} more failing suites, above)\n`);
    }
    const slowest = [...durations].sort((a, b) => b.ms - a.ms).slice(0, SLOWEST_SHOWN);
    if (slowest.length > 0) lines.push(`slowest: ${slowest.map(({ name, ms }) => `${name} (${formatDuration(ms)})`).join(', ')}`);
    lines.push(`whole run: ${formatDuration(Date.now() - runStartedAt)} (${CONCURRENCY} suites at a time)`);
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
  // `npm test -- --suites REGEX` runs only the suites whose names match (docs/testing.md).
  const only = suiteFilter(process.argv);
  const partial = only.source !== '(?:)';
  const selected = suites(root).filter((candidate) => existsSync(join(root, candidate.dir)) && (includeLong || !candidate.long) && only.test(candidate.name));
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

  /** @param {Job} job @param {Slot} slot @returns {Promise<void>} */
  const runJob = async (job, slot) => {
    const startedAt = Date.now();
    /** Said as one block when the job ends: jobs run side by side, and their lines must not interleave. */
    let said = '';
    const say = (/** @type {string} */ text) => void (said += text);
    /** @param {import('./testRunner/summary.mjs').Counts} counts @param {string} [note] */
    const record = (counts, note) => {
      totals.passed += counts.passed;
      totals.failed += counts.failed;
      totals.skipped += counts.skipped;
      lines.push(suiteLine(job.name, counts, Date.now() - startedAt, note));
      durations.push({ name: job.name, ms: Date.now() - startedAt });
      process.stdout.write(`\n=== ${job.name} (${formatDuration(Date.now() - startedAt)}) ===\n${said}`);
    };
    /** Never a silent skip: a suite that cannot run fails. @param {string} why */
    const notRun = (why) => {
      say(`not run: ${why}\n`);
      record({ passed: 0, failed: 1, skipped: 0 }, `(not run: ${why})`);
    };
    if (budgetLeftMs() <= 0) return notRun(BUDGET_SPENT);
    process.stdout.write(`[start] ${job.name}\n`);
    const serverEnv = {};
    if (job.needs === 'temporal') {
      if (!slot.temporal) {
        try {
          // One server per slot, shared by its Temporal jobs one after another (two jobs never share one: each
          // stops and starts workers on the same task queues); the large-message build so 30 MiB results can pass
          // (scripts/infra/README.md).
          slot.temporal = await startTemporalDevServer({ largeMessages: true, log: (line) => say(`[temporal] ${line}\n`) });
        } catch (error) {
          return notRun(`the Temporal dev server is unavailable: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
      Object.assign(serverEnv, { TEMPORAL_ADDRESS: slot.temporal.address, TEMPORAL_NAMESPACE: slot.temporal.namespace });
    }
    // Counted after the server start, which can take a while on a loaded machine.
    const timeLimitMs = suiteTimeLimit({ suiteLimitMs: SUITE_LIMIT_MS, budgetMs: RUN_BUDGET_MS, elapsedMs: Date.now() - runStartedAt });
    if (timeLimitMs === 0) return notRun(BUDGET_SPENT);
    const command = nodeBinaries.get(nodeOf(job));
    if (!command) return notRun(`Node ${nodeOf(job)} could not be installed`);
    // The suite's Node first on PATH: what its tests start by name (node, npm, npx, a package's bin) runs on it too.
    const path = [dirname(command), process.env.PATH].filter(Boolean).join(delimiter);
    const outcome = await runSuiteProcess({
      command,
      args: ['--import', 'tsx', join(root, 'node_modules', 'uvu', 'bin.js'), job.dir, job.pattern],
      cwd: root,
      // A suite that repeats another on an older Node adds no coverage, only the cost of measuring it.
      env: { ...process.env, PATH: path, ...(job.coverage === false ? {} : { NODE_V8_COVERAGE: coverageTemp }), ...serverEnv, ...job.env },
      timeLimitMs,
      echo: false,
    });
    say(outcome.output);
    const excerpt = failureExcerpt(outcome);
    if (excerpt !== undefined) excerpts.push(`--- ${job.name} ---\n${excerpt}`);
    const note = outcome.stopped
      ? `(ended by the runner: ${outcome.stopped})`
      : parseSummary(outcome.output) === undefined
        ? `(${outcome.signal ? `killed by ${outcome.signal}` : `exited with code ${outcome.code}`} before uvu's summary)`
        : undefined;
    record(suiteCounts(outcome), note);
  };

  const jobs = longestFirst(selected.flatMap((suite) => jobsOf(suite, testFilesOf(join(root, suite.dir), suite.pattern ?? DEFAULT_PATTERN))));
  /** @type {Job[]} */
  const running = [];
  await new Promise((resolvePromise) => {
    const startWhatCan = () => {
      if (running.length === 0 && (jobs.length === 0 || interrupted)) return resolvePromise(undefined);
      for (;;) {
        if (interrupted) return;
        const job = nextJob(jobs, running);
        const free = slots.filter((slot) => !slot.busy);
        if (!job || free.length === 0) return;
        // A Temporal job goes where a server already runs; another job leaves those slots to Temporal jobs.
        const slot = (job.needs === 'temporal' ? free.find((candidate) => candidate.temporal) : free.find((candidate) => !candidate.temporal)) ?? free[0];
        jobs.splice(jobs.indexOf(job), 1);
        running.push(job);
        slot.busy = true;
        void runJob(job, slot)
          .catch((error) => {
            totals.failed += 1;
            lines.push(`${job.name}: the runner failed to run it: ${error instanceof Error ? error.message : String(error)}`);
          })
          .finally(() => {
            running.splice(running.indexOf(job), 1);
            slot.busy = false;
            startWhatCan();
          });
      }
    };
    startWhatCan();
  });

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
  if (partial) {
    // A part of the suites covers a part of the code: the floor is for the whole run.
    lines.push(`coverage floor ${COVERAGE_FLOOR}% lines: not checked (only the suites matching ${only} ran)`);
  } else {
    if (floorMet) totals.passed += 1;
    else totals.failed += 1;
    lines.push(`coverage floor ${COVERAGE_FLOOR}% lines: ${floorMet ? 'met' : 'NOT met'}`);
  }
  report();
  process.exit(totals.failed === 0 ? 0 : 1);
}

main().catch((error) => {
  // Servers started by this process are killed by scripts/infra's exit hook and parent-death signal.
  process.stderr.write(`test runner crashed: ${error?.stack ?? error}\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(1);
});
