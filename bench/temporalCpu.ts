// Figure 9: what the API costs per request on Temporal as a deployment pays it, beside what the raw
// @temporalio/client spends per call doing the same thing in the same run. CPU, not throughput: on a shared 2-core
// machine throughput follows whatever else runs, while the CPU a process spends per request depends on what it does.
// The API is `flowgate serve` as `npm start` runs it, in the default configuration (access log on, a token set), its
// whole process's CPU read from /proc; the raw client is connected once and warm (bench/deployedProcesses.ts).
import { startBareTemporalApi, startDeployedApi, startRawClient, type DeployedApi, type RawClientProcess } from './deployedProcesses.js';
import type { LoadResult, LoadSpec } from './processes/load.js';
import type { RawRound } from './processes/rawRound.js';

export interface CpuFigureSetup {
  api: DeployedApi;
  /** The floor: bare node:http over the raw client (processes/bareTemporalApi.mjs), measured as the API is. */
  bare: DeployedApi;
  raw: RawClientProcess;
  /** The task queue (catalog) the bench worker serves. */
  taskQueue: string;
  /** A round's length; run-and-wait's rounds are twice as long (fewer, slower calls). */
  seconds: number;
  rounds: number;
  load(spec: Omit<LoadSpec, 'seconds'> & Partial<LoadSpec>): Promise<LoadResult>;
}

export interface CpuRound {
  raw: number;
  bare: number;
  api: number;
  ratio: number;
  /** The bare API's CPU per request over the raw client's per call: what the HTTP exchange alone costs. */
  floor: number;
}

export interface OperationCpu {
  operation: string;
  concurrency: number;
  /** Median round's µs per call (raw client) and per request (flowgate API), and their ratio. */
  rawMicros: number;
  bareMicros: number;
  apiMicros: number;
  ratio: number;
  floor: number;
  /** Every round, in order. */
  rounds: CpuRound[];
  target: number;
}

export interface Operation {
  name: string;
  concurrency: number;
  target: number;
  /** Round length, × the setup's `seconds`. */
  lengthFactor: number;
  raw: Omit<RawRound, 'connections' | 'seconds' | 'taskQueue'>;
  request: Pick<LoadSpec, 'url' | 'method' | 'body' | 'expect'>;
}

/** Per request the load generator counted (answered or failed), as an operator's bill divides it. */
const perCall = (result: LoadResult, cpuMicros: number): number => cpuMicros / Math.max(1, result.requests + result.errors);

/** An API process's CPU per request under one load, read from outside before and after. */
async function apiMicros(setup: CpuFigureSetup, api: DeployedApi, operation: Operation, seconds: number): Promise<number> {
  const before = await api.cpuMicros();
  const request = { ...operation.request, url: `${api.url}${operation.request.url}` };
  const result = await setup.load({ ...request, headers: { authorization: `Bearer ${api.token}` }, connections: operation.concurrency, seconds });
  const after = await api.cpuMicros();
  if (result.errors > 0) throw new Error(`${operation.name}: ${result.errors} failed requests (${JSON.stringify(result.statuses)})`);
  return perCall(result, after - before);
}

async function rawMicros(setup: CpuFigureSetup, operation: Operation, seconds: number): Promise<number> {
  const result = await setup.raw.round({ ...operation.raw, taskQueue: setup.taskQueue, connections: operation.concurrency, seconds });
  if (result.errors > 0) throw new Error(`raw ${operation.name}: ${result.errors} failed calls`);
  return perCall(result, result.cpuMicros ?? 0);
}

/** Figure 9's operations, in the order measured: run-and-wait before start (thousands of started runs queue on the worker). */
export function figureOperations(statusRun: string): Operation[] {
  return [
    {
      name: 'status (`GET /workflow/{id}/status`, raw `describe()`)',
      concurrency: 50,
      target: 1.15,
      lengthFactor: 1,
      raw: { mode: 'describe', workflowType: 'bench_noop', input: {}, workflowId: statusRun },
      request: { url: `/workflow/${statusRun}/status` },
    },
    {
      name: 'run and wait (`POST /workflow/run`, raw `execute()`)',
      concurrency: 10,
      target: 1.3,
      lengthFactor: 2,
      raw: { mode: 'execute', workflowType: 'bench_one_step', input: { n: 1 } },
      request: { url: '/workflow/run', method: 'POST', body: JSON.stringify({ workflowName: 'bench_one_step', input: { n: 1 } }), expect: '"status":"completed"' },
    },
    {
      name: 'start (`POST /workflow`, raw `start()`)',
      concurrency: 50,
      target: 1.2,
      lengthFactor: 1,
      raw: { mode: 'start', workflowType: 'bench_noop', input: {} },
      request: { url: '/workflow', method: 'POST', body: JSON.stringify({ workflowName: 'bench_noop', input: {} }) },
    },
  ];
}

/**
 * Status, start and run-and-wait, each in alternating rounds (ABBA: the dev server slows as runs accumulate), after
 * a warm-up of both sides. Run-and-wait goes before start: thousands of started runs queue on the worker.
 */
export async function measureApiCpu(setup: CpuFigureSetup, statusRun: string): Promise<OperationCpu[]> {
  const figures: OperationCpu[] = [];
  for (const operation of figureOperations(statusRun)) {
    const seconds = setup.seconds * operation.lengthFactor;
    const warmUp = Math.min(2, seconds);
    const sides = {
      raw: () => rawMicros(setup, operation, seconds),
      bare: () => apiMicros(setup, setup.bare, operation, seconds),
      api: () => apiMicros(setup, setup.api, operation, seconds),
    };
    await rawMicros(setup, operation, warmUp);
    await apiMicros(setup, setup.bare, operation, warmUp);
    await apiMicros(setup, setup.api, operation, warmUp);
    const rounds: CpuRound[] = [];
    for (let round = 0; round < setup.rounds; round++) {
      // Each side goes first, second and last in turn: the dev server slows as runs accumulate.
      const order = (['raw', 'bare', 'api'] as const).map((_, index, names) => names[(index + round) % names.length]!);
      const measured: Partial<Record<keyof typeof sides, number>> = {};
      for (const side of order) measured[side] = await sides[side]();
      const { raw, bare, api } = measured as Record<keyof typeof sides, number>;
      rounds.push({ raw, bare, api, ratio: api / raw, floor: bare / raw });
    }
    // The median of an even number of rounds: the mean of the middle two.
    const sorted = [...rounds].sort((a, b) => a.ratio - b.ratio);
    const middle = sorted.length % 2 === 1 ? [sorted[(sorted.length - 1) / 2]!] : [sorted[sorted.length / 2 - 1]!, sorted[sorted.length / 2]!];
    const mean = (pick: (round: CpuRound) => number) => middle.reduce((sum, round) => sum + pick(round), 0) / middle.length;
    figures.push({
      operation: operation.name,
      concurrency: operation.concurrency,
      rawMicros: mean((round) => round.raw),
      bareMicros: mean((round) => round.bare),
      apiMicros: mean((round) => round.api),
      ratio: mean((round) => round.ratio),
      floor: mean((round) => round.floor),
      rounds,
      target: operation.target,
    });
  }
  return figures;
}

const micros = (value: number): string => (value >= 1000 ? `${(value / 1000).toFixed(2)} ms` : `${value.toFixed(0)} µs`);

/** Figure 9's table, and its verdict: Met or **Missed** for each operation. */
export function cpuFigureRows(figures: OperationCpu[]): { table: string[][]; verdict: string } {
  return {
    table: [
      [
        'operation',
        'concurrent',
        'raw client, CPU per call',
        'bare node:http over the raw client, per request (floor)',
        'flowgate API, CPU per request',
        'ratio',
        'target',
        'rounds: raw / bare / API µs (ratio)',
      ],
      ...figures.map((figure) => [
        figure.operation,
        String(figure.concurrency),
        micros(figure.rawMicros),
        `${micros(figure.bareMicros)} (${figure.floor.toFixed(2)})`,
        micros(figure.apiMicros),
        figure.ratio.toFixed(2),
        `≤ ${figure.target}`,
        figure.rounds.map((round) => `${round.raw.toFixed(0)} / ${round.bare.toFixed(0)} / ${round.api.toFixed(0)} (${round.ratio.toFixed(2)})`).join(', '),
      ]),
    ],
    verdict: figures
      .map((figure) => `${figure.ratio <= figure.target ? 'Met' : '**Missed**'}: ${figure.operation.split(' (')[0]} ${figure.ratio.toFixed(2)} (target ≤ ${figure.target})`)
      .join('; '),
  };
}

/** Figure 9's rounds: 4 alternating rounds of 8 s (run-and-wait 16 s), long enough for what grows with the runs served to show. */
const CPU_ROUNDS = 4;
export const CPU_ROUND_SECONDS = Number(process.env.BENCH_CPU_SECONDS ?? 8);

/**
 * Figure 9 on the Temporal dev server at `address` (its bench worker serving `main`): the deployed API and the warm
 * raw client started for it and stopped after; `statusRun` is the closed run the status requests read.
 */
export async function cpuFigure({ address, traceDir, statusRun, load }: { address: string; traceDir: string; statusRun: string; load: CpuFigureSetup['load'] }) {
  const api = await startDeployedApi(address, traceDir);
  const started: { stop(): Promise<void> }[] = [api];
  const stopAll = () => Promise.all(started.map((process) => process.stop()));
  let bare: DeployedApi, raw: RawClientProcess;
  try {
    bare = await startBareTemporalApi(address);
    started.push(bare);
    raw = await startRawClient(address);
    started.push(raw);
  } catch (error) {
    await stopAll();
    throw error;
  }
  try {
    const rows = cpuFigureRows(await measureApiCpu({ api, bare, raw, taskQueue: 'main', seconds: CPU_ROUND_SECONDS, rounds: CPU_ROUNDS, load }, statusRun));
    return {
      title: 'Figure 9: CPU of the whole API process per request on Temporal, as `npm start` runs it, beside the raw @temporalio/client per call',
      table: rows.table,
      verdict:
        `${rows.verdict}; the median of ${CPU_ROUNDS} rounds of ${CPU_ROUND_SECONDS} s each (run-and-wait ${2 * CPU_ROUND_SECONDS} s), each side first, second and last in turn, after a warm-up of all three. ` +
        'The API: `flowgate serve` on the compiled dist/ in the default configuration (access log on, API_AUTH_TOKEN set), its user + system time from /proc/<pid>/stat over the requests the load generator counted. ' +
        'The raw client: connected once in one long-lived process, its own process.cpuUsage() over its calls. ' +
        'The floor: a bare node:http server over the same raw client (bench/processes/bareTemporalApi.mjs: the token compared, the body parsed, the one call, a small JSON answer), measured as the API is; in parentheses, its ratio to the raw client',
    };
  } finally {
    await stopAll();
  }
}
