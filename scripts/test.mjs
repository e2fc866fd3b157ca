#!/usr/bin/env node
// `npm test` (and `npm run test:long`, which adds the long suites): every suite in its own uvu process (with V8 coverage), the c8 coverage floor, and one closing line
// `N passed, N failed` with totals over every suite. Exits non-zero on any failure.
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { existsSync } from 'node:fs';
import { suites } from './suites.mjs';
import { startTemporalDevServer } from './infra/index.mjs';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const coverageTemp = join(root, 'coverage', 'tmp');
const COVERAGE_FLOOR = 90;
const ANSI = /\u001b\[[0-9;]*m/g;

function run(command, args, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      process.stderr.write(chunk);
    });
    child.on('close', (code, signal) => resolvePromise({ code: code ?? (signal ? 1 : 0), output: output.replace(ANSI, '') }));
  });
}

/** uvu's summary: `Total: N`, `Passed: N`, `Skipped: N`. */
function parseSummary(output) {
  const number = (label) => {
    const match = output.match(new RegExp(`^\\s*${label}:\\s+(\\d+)`, 'm'));
    return match ? Number(match[1]) : undefined;
  };
  const total = number('Total');
  const passed = number('Passed');
  if (total === undefined || passed === undefined) return undefined;
  const skipped = number('Skipped') ?? 0;
  return { passed, failed: total - passed - skipped, skipped };
}

async function main() {
  rmSync(join(root, 'coverage'), { recursive: true, force: true });
  mkdirSync(coverageTemp, { recursive: true });
  const totals = { passed: 0, failed: 0, skipped: 0 };
  const lines = [];

  /** @type {{ address: string, namespace: string, stop: () => Promise<void> } | undefined} */
  let temporal;
  /** @type {Error | undefined} */
  let temporalFailure;
  const stopServers = async () => {
    await temporal?.stop();
    temporal = undefined;
  };
  process.once('SIGINT', () => void stopServers().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stopServers().then(() => process.exit(143)));

  // The long suites (soak, heaviest fault tests) run under `npm run test:long` and always in CI.
  const includeLong = process.argv.includes('--long') || process.env.CI === 'true';
  const selected = suites(root).filter((candidate) => existsSync(join(root, candidate.dir)) && (includeLong || !candidate.long));
  for (const suite of selected) {
    process.stdout.write(`\n=== ${suite.name} ===\n`);
    const serverEnv = {};
    if (suite.needs === 'temporal') {
      if (!temporal && !temporalFailure) {
        try {
          // One server for every Temporal suite; the large-message build so 30 MiB results can pass (scripts/infra/README.md).
          temporal = await startTemporalDevServer({ largeMessages: true, log: (line) => process.stdout.write(`[temporal] ${line}\n`) });
        } catch (error) {
          temporalFailure = error instanceof Error ? error : new Error(String(error));
        }
      }
      if (!temporal) {
        // Never a silent skip: a suite that cannot get its server fails.
        process.stdout.write(`Temporal dev server unavailable: ${temporalFailure?.message}\n`);
        totals.failed += 1;
        lines.push(`${suite.name}: 0 passed, 1 failed (Temporal dev server unavailable)`);
        continue;
      }
      Object.assign(serverEnv, { TEMPORAL_ADDRESS: temporal.address, TEMPORAL_NAMESPACE: temporal.namespace });
    }
    const { code, output } = await run(
      process.execPath,
      ['--import', 'tsx', join(root, 'node_modules', 'uvu', 'bin.js'), suite.dir, suite.pattern ?? '\\.test\\.ts$'],
      { NODE_V8_COVERAGE: coverageTemp, ...serverEnv, ...suite.env },
    );
    const summary = parseSummary(output) ?? { passed: 0, failed: 1, skipped: 0 };
    // A crash after the summary (or a non-zero exit without failures) still counts as a failure.
    if (code !== 0 && summary.failed === 0) summary.failed = 1;
    totals.passed += summary.passed;
    totals.failed += summary.failed;
    totals.skipped += summary.skipped;
    lines.push(`${suite.name}: ${summary.passed} passed, ${summary.failed} failed${summary.skipped ? `, ${summary.skipped} skipped` : ''}`);
  }

  await stopServers();

  process.stdout.write('\n=== coverage (core/, adapters/) ===\n');
  const coverage = await run(process.execPath, [
    join(root, 'node_modules', 'c8', 'bin', 'c8.js'),
    'report',
    '--temp-directory', coverageTemp,
    '--reporter', 'text-summary',
    '--reporter', 'lcov',
    '--include', 'core/**',
    '--include', 'adapters/**',
    '--exclude', '**/*.d.ts',
    '--check-coverage', '--lines', String(COVERAGE_FLOOR),
  ]);
  if (coverage.code === 0) totals.passed += 1;
  else totals.failed += 1;
  lines.push(`coverage floor ${COVERAGE_FLOOR}% lines: ${coverage.code === 0 ? 'met' : 'NOT met'}`);

  process.stdout.write(`\n${lines.join('\n')}\n`);
  process.stdout.write(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}\n`);
  process.exit(totals.failed === 0 ? 0 : 1);
}

main().catch((error) => {
  // Servers started by this process are killed by scripts/infra's exit hook and parent-death signal.
  process.stderr.write(`test runner crashed: ${error?.stack ?? error}\n`);
  process.stdout.write('0 passed, 1 failed\n');
  process.exit(1);
});
