// Figure 11 of `npm run bench` (BENCH_ONLY=11 alone): the durable embedded engine's throughput beside the in-memory
// engine's and flowgate's on a Temporal dev server, the same two-step workflow and load for each, and the latency of
// a low-rate `GET /health` prober meanwhile (a commit must not hold the event loop for long).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { LoadResult, LoadSpec } from './processes/load.js';
import { runToEnd, startHelper, startServer, type ProbeAnswer, type ServerProcess } from './processes.js';
import { startTemporalFlowgate, type TemporalFlowgate } from './temporalFlowgate.js';

export interface DurableSpeedSetup {
  traceDir: string;
  connections: number;
  seconds: number;
  warmUpSeconds: number;
  rounds: number;
  load(spec: Omit<LoadSpec, 'seconds' | 'connections'> & Partial<LoadSpec>): Promise<LoadResult>;
  log(line: string): void;
}

type EngineName = 'durable, DATA_SYNC=full' | 'durable, DATA_SYNC=normal' | 'memory' | 'Temporal dev server';
interface Engine {
  name: EngineName;
  server: ServerProcess;
  url: string;
}

interface Measurement {
  load: LoadResult;
  /** The prober's latencies (ms) while the load ran. */
  health: number[];
  healthErrors: number;
  /** The flowgate process's CPU per answered request, µs (on Temporal the API process only). */
  cpuMicros: number;
  /** Its event loop's delay meanwhile, and the durable store's commits (ms held, runs each). */
  loop: NonNullable<ProbeAnswer['loop']>;
  commits: ProbeAnswer['commits'];
}

export interface OperationFigures {
  operation: string;
  /** Per engine, one measurement per round. */
  rounds: Map<EngineName, Measurement[]>;
  throughput: boolean;
  /** The raw client's execute() on the dev server, one per round, when measured. */
  rawRounds: LoadResult[];
  /** Engines whose started runs had not all closed before their next measurement, once per time. */
  undrained: EngineName[];
}

const HEALTH_INTERVAL_MS = 20;
const DRAIN_TIMEOUT_MS = 300_000;
const TWO_STEPS = JSON.stringify({ workflowName: 'bench_two_steps', input: { n: 1 } });
/** Below every embedded engine's capacity on the bench machine: what a commit costs `/health` when nothing queues. */
const FIXED_RATE = 200;
const EMBEDDED: readonly EngineName[] = ['durable, DATA_SYNC=full', 'durable, DATA_SYNC=normal', 'memory'];
interface Operation {
  operation: string;
  spec: Pick<LoadSpec, 'method' | 'body' | 'expect' | 'rate'>;
  path: string;
  /** Wait after each load until the runs it started have closed. */
  drain: boolean;
  /** The engines it is measured on: all four unless given. */
  engines?: readonly EngineName[];
  /** Throughput targets apply (not to a fixed rate). */
  throughput: boolean;
  /** The same runs through the raw @temporalio/client on the same dev server, each round: Temporal's own pace. */
  rawExecute?: boolean;
}
const OPERATIONS: Operation[] = [
  // Run-and-wait first: the runs that starts leave behind (running after their answer) would load what follows.
  {
    operation: 'run and wait (`POST /workflow/run`)',
    spec: { method: 'POST', body: TWO_STEPS, expect: '"status":"completed"' },
    path: '/workflow/run',
    drain: false,
    throughput: true,
    rawExecute: true,
  },
  { operation: 'start (`POST /workflow`)', spec: { method: 'POST', body: TWO_STEPS }, path: '/workflow', drain: true, throughput: true },
  {
    operation: `run and wait at a fixed ${FIXED_RATE} runs/s (below capacity)`,
    spec: { method: 'POST', body: TWO_STEPS, expect: '"status":"completed"', rate: FIXED_RATE },
    path: '/workflow/run',
    drain: false,
    engines: EMBEDDED,
    throughput: false,
  },
];

/** The four flowgates at once (each idle while another is measured), rounds in rotating order, for each operation. */
export async function measureDurableSpeed(setup: DurableSpeedSetup): Promise<OperationFigures[]> {
  const dataRoot = await mkdtemp(join(tmpdir(), 'fg-bench-durable-'));
  const embedded = (name: EngineName, env: Record<string, string>) => ({ name, server: startServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: setup.traceDir, ...env }) });
  const started = [
    embedded('durable, DATA_SYNC=full', { ENGINE: 'embedded', DATA_DIR: join(dataRoot, 'full'), DATA_SYNC: 'full' }),
    embedded('durable, DATA_SYNC=normal', { ENGINE: 'embedded', DATA_DIR: join(dataRoot, 'normal'), DATA_SYNC: 'normal' }),
    embedded('memory', { ENGINE: 'memory' }),
  ];
  let temporal: TemporalFlowgate | undefined;
  try {
    const engines: Engine[] = [];
    for (const { name, server } of started) engines.push({ name, server, url: (await server.ready).url as string });
    setup.log('figure 11: starting the Temporal dev server, its worker and the API');
    temporal = await startTemporalFlowgate(setup.traceDir);
    engines.push({ name: 'Temporal dev server', server: temporal.server, url: temporal.url });
    const figures: OperationFigures[] = [];
    for (const { operation, spec, path, drain, engines: only, throughput, rawExecute } of OPERATIONS) {
      const measured = engines.filter((engine) => !only || only.includes(engine.name));
      setup.log(`figure 11: ${operation}`);
      const measure = async (engine: Engine, seconds: number): Promise<Measurement> => {
        const probe = startHelper('bench/processes/healthProbe.mjs', { url: engine.url, intervalMs: HEALTH_INTERVAL_MS });
        let result: Measurement;
        try {
          await probe.ready;
          const before = await engine.server.ask('loop:start');
          const load = await setup.load({ ...spec, url: `${engine.url}${path}`, seconds });
          const after = await engine.server.ask('loop:stop');
          const probed = (await probe.stop()) as { samples: [number, number][]; errors: number };
          // Only the probes sent while the load ran: the load process's own start and end are left out.
          const window = load.window ?? { from: 0, to: Number.POSITIVE_INFINITY };
          const health = probed.samples.filter(([sent]) => sent >= window.from && sent <= window.to).map(([, ms]) => ms);
          result = { load, health, healthErrors: probed.errors, cpuMicros: (after.cpu - before.cpu) / Math.max(1, load.requests), loop: after.loop!, commits: after.commits };
        } catch (error) {
          await probe.stop().catch(() => {});
          throw error;
        }
        if (drain && !(await waitForNoOpenRuns(engine))) {
          // A worker on a crowded machine may take longer: the figure goes on, and says so.
          undrained.push(engine.name);
          setup.log(`figure 11: ${engine.name} still had open runs ${DRAIN_TIMEOUT_MS / 1000} s after the starts; measuring on`);
        }
        return result;
      };
      for (const engine of measured) await measure(engine, setup.warmUpSeconds);
      const rounds = new Map<EngineName, Measurement[]>(measured.map((engine) => [engine.name, []]));
      const rawRounds: LoadResult[] = [];
      const undrained: EngineName[] = [];
      for (let round = 0; round < setup.rounds; round++) {
        // A rotating order: whatever drifts over the minutes of a figure (the machine, the dev server's growing
        // history) does not always favour the same engine.
        for (let index = 0; index < measured.length; index++) {
          const engine = measured[(index + round) % measured.length]!;
          rounds.get(engine.name)!.push(await measure(engine, setup.seconds));
          if (rawExecute && engine.name === 'Temporal dev server') rawRounds.push(await rawRuns(temporal.address, setup));
        }
      }
      figures.push({ operation, rounds, throughput, rawRounds, undrained });
    }
    return figures;
  } finally {
    await Promise.all([...started.map(({ server }) => server.stop()), temporal?.stop()]);
    await rm(dataRoot, { recursive: true, force: true });
  }
}

function rawRuns(address: string, setup: DurableSpeedSetup): Promise<LoadResult> {
  return runToEnd<LoadResult>('bench/processes/rawTemporal.ts', {
    mode: 'execute',
    address,
    taskQueue: 'main',
    workflowType: 'bench_two_steps',
    input: { n: 1 },
    connections: setup.connections,
    seconds: setup.seconds,
  });
}

/**
 * Until the runs the starts left behind have closed, which would otherwise load the next measurement; false when
 * some are still open after DRAIN_TIMEOUT_MS.
 */
async function waitForNoOpenRuns(engine: Engine): Promise<boolean> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const response = await request(`${engine.url}/workflow/runs?status=running&limit=1`);
    const body = (await response.body.json()) as { runs?: unknown[] };
    if (response.statusCode === 200 && body.runs?.length === 0) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
const ms = (value: number) => `${value.toFixed(2)} ms`;
const HEALTH_TARGET_MS = 20;
const TARGETS = { ofMemory: 0.5, ofTemporal: 10 };

/** Figure 11's table and verdict: Met or **Missed** per target, for DATA_SYNC=full; DATA_SYNC=normal beside it. */
export function durableSpeedRows(figures: OperationFigures[]): { table: string[][]; verdict: string } {
  const table = [
    [
      'operation',
      'engine',
      'throughput, median round',
      'rounds',
      'p50',
      'p99',
      'errors',
      'server CPU per request',
      '`/health` p50 / p99 / worst (probes)',
      'event-loop delay p99 / worst',
      'commits: held p50 / p99 / worst; runs per commit, median / most',
    ],
  ];
  const verdicts: string[] = [];
  for (const { operation, rounds, throughput, rawRounds, undrained } of figures) {
    if (undrained.length > 0) verdicts.push(`${operation}: runs were still open when the next load began, after ${undrained.join(', ')}`);
    const byName = (name: EngineName) => rounds.get(name)!;
    for (const [name, measurements] of rounds) {
      const mid = [...measurements].sort((a, b) => a.load.rps - b.load.rps)[Math.floor(measurements.length / 2)]!;
      const health = measurements.flatMap((measurement) => measurement.health);
      const healthErrors = measurements.reduce((sum, measurement) => sum + measurement.healthErrors, 0);
      table.push([
        operation,
        name === 'Temporal dev server' ? 'Temporal dev server (API + worker)' : name,
        `${mid.load.rps.toFixed(0)}/s`,
        measurements.map((measurement) => measurement.load.rps.toFixed(0)).join(', '),
        ms(mid.load.p50),
        ms(mid.load.p99),
        String(measurements.reduce((sum, measurement) => sum + measurement.load.errors, 0)),
        `${median(measurements.map((measurement) => measurement.cpuMicros)).toFixed(0)} µs${name === 'Temporal dev server' ? ' (API process only)' : ''}`,
        `${ms(percentile(health, 50))} / ${ms(percentile(health, 99))} / ${ms(Math.max(...health))} (${health.length}${healthErrors ? `, ${healthErrors} failed` : ''})`,
        `${ms(median(measurements.map((measurement) => measurement.loop.p99)))} / ${ms(Math.max(...measurements.map((measurement) => measurement.loop.max)))}`,
        commitCell(measurements),
      ]);
    }
    if (rawRounds.length > 0) {
      const mid = [...rawRounds].sort((a, b) => a.rps - b.rps)[Math.floor(rawRounds.length / 2)]!;
      table.push([
        operation,
        'raw @temporalio/client `execute()` on the same dev server (reference)',
        `${mid.rps.toFixed(0)}/s`,
        rawRounds.map((result) => result.rps.toFixed(0)).join(', '),
        ms(mid.p50),
        ms(mid.p99),
        String(rawRounds.reduce((sum, result) => sum + result.errors, 0)),
        '—',
        '—',
        '—',
        '—',
      ]);
    }
    const healthP99 = (name: EngineName) => percentile(byName(name).flatMap((measurement) => measurement.health), 99);
    if (!throughput) {
      const [full, normal, memory] = EMBEDDED.map(healthP99) as [number, number, number];
      verdicts.push(
        `${operation}: ${healthP99Said(full)} on DATA_SYNC=full, ${ms(normal)} on DATA_SYNC=normal, ${ms(memory)} on the memory engine (no target of its own: where the target stands once nothing queues)`,
      );
      continue;
    }
    const ratios = (name: EngineName, reference: EngineName) => byName(name).map((measurement, round) => measurement.load.rps / byName(reference)[round]!.load.rps);
    const short = operation.split(' (')[0];
    for (const sync of ['full', 'normal'] as const) {
      const name: EngineName = `durable, DATA_SYNC=${sync}`;
      const ofMemory = ratios(name, 'memory');
      const ofTemporal = ratios(name, 'Temporal dev server');
      const list = (values: number[]) => values.map((value) => value.toFixed(2)).join(', ');
      const parts = [
        [median(ofMemory) >= TARGETS.ofMemory, `${median(ofMemory).toFixed(2)} of the memory engine (target ≥ ${TARGETS.ofMemory}; rounds ${list(ofMemory)})`],
        [median(ofTemporal) >= TARGETS.ofTemporal, `${median(ofTemporal).toFixed(1)}× Temporal (target ≥ ${TARGETS.ofTemporal}×; rounds ${ofTemporal.map((value) => value.toFixed(1)).join(', ')})`],
      ] as const;
      const said = `${parts.map(([met, text]) => `${met ? 'Met' : '**Missed**'}: ${text}`).join('; ')}; ${healthP99Said(healthP99(name))} under the load (the memory engine's ${ms(healthP99('memory'))})`;
      verdicts.push(sync === 'full' ? `${short}, DATA_SYNC=full (the default): ${said}` : `${short}, DATA_SYNC=normal (the same targets, for comparison): ${said}`);
    }
  }
  return { table, verdict: verdicts.join('. ') };
}

function healthP99Said(p99: number): string {
  return `${p99 < HEALTH_TARGET_MS ? 'Met' : '**Missed**'}: \`/health\` p99 ${ms(p99)} (target < ${HEALTH_TARGET_MS} ms)`;
}

/** The commits of the median round by p99, the worst of all rounds; `—` for an engine without a durable store. */
function commitCell(measurements: Measurement[]): string {
  const commits = measurements.map((measurement) => measurement.commits).filter((entry) => entry !== undefined && entry.count > 0);
  if (commits.length === 0) return '—';
  const mid = [...commits].sort((a, b) => a!.p99 - b!.p99)[Math.floor(commits.length / 2)]!;
  return `${ms(mid.p50)} / ${ms(mid.p99)} / ${ms(Math.max(...commits.map((entry) => entry!.max)))}; ${mid.runsMedian} / ${Math.max(...commits.map((entry) => entry!.runsMax))} (${mid.count} commits)`;
}
