// Figure 9: what the API process spends per request on Temporal, beside what the raw @temporalio/client
// spends per call doing the same thing in the same run. CPU, not throughput: on a shared 2-core machine throughput
// follows whatever else runs, while the CPU a process spends per request depends only on what it does.
import type { LoadResult, LoadSpec } from './processes/load.js';
import { runToEnd, type ServerProcess } from './processes.js';

export interface CpuFigureSetup {
  /** The flowgate API process on Temporal, and its URL. */
  server: ServerProcess;
  url: string;
  /** Temporal's address and the task queue (catalog) the bench worker serves. */
  address: string;
  taskQueue: string;
  seconds: number;
  rounds: number;
  load(spec: Omit<LoadSpec, 'seconds'> & Partial<LoadSpec>): Promise<LoadResult>;
}

export interface OperationCpu {
  operation: string;
  concurrency: number;
  /** Median round's µs per call (raw client) and per request (flowgate API), and their ratio. */
  rawMicros: number;
  apiMicros: number;
  ratio: number;
  /** Every round's ratio, in order. */
  ratios: number[];
  target: number;
}

interface Operation {
  name: string;
  concurrency: number;
  target: number;
  raw: { mode: 'describe' | 'start' | 'execute'; workflowType: string; input: unknown; workflowId?: string };
  request: Pick<LoadSpec, 'url' | 'method' | 'body' | 'expect'>;
}

const perCall = (result: LoadResult, cpuMicros: number): number => cpuMicros / Math.max(1, result.requests + result.errors);

/** The API process's CPU per request under one load: its CPU clock read before and after over IPC. */
async function apiMicros(setup: CpuFigureSetup, operation: Operation): Promise<number> {
  const before = await setup.server.ask('cpu:read');
  const result = await setup.load({ ...operation.request, connections: operation.concurrency });
  const after = await setup.server.ask('cpu:read');
  if (result.errors > 0) throw new Error(`${operation.name}: ${result.errors} failed requests (${JSON.stringify(result.statuses)})`);
  return perCall(result, after.cpu - before.cpu);
}

async function rawMicros(setup: CpuFigureSetup, operation: Operation, seconds = setup.seconds): Promise<number> {
  const result = await runToEnd<LoadResult>('bench/processes/rawTemporal.ts', {
    ...operation.raw,
    address: setup.address,
    taskQueue: setup.taskQueue,
    connections: operation.concurrency,
    seconds,
  });
  if (result.errors > 0) throw new Error(`raw ${operation.name}: ${result.errors} failed calls`);
  return perCall(result, result.cpuMicros ?? 0);
}

/**
 * Status, start and run-and-wait, each in alternating rounds (ABBA: the dev server slows as runs accumulate), after
 * a warm-up of both sides. Run-and-wait goes before start: thousands of started runs queue on the worker.
 */
export async function measureApiCpu(setup: CpuFigureSetup, statusRun: string): Promise<OperationCpu[]> {
  const { url } = setup;
  const operations: Operation[] = [
    {
      name: 'status (`GET /workflow/{id}/status`, raw `describe()`)',
      concurrency: 50,
      target: 1.15,
      raw: { mode: 'describe', workflowType: 'bench_noop', input: {}, workflowId: statusRun },
      request: { url: `${url}/workflow/${statusRun}/status` },
    },
    {
      name: 'run and wait (`POST /workflow/run`, raw `execute()`)',
      concurrency: 10,
      target: 1.3,
      raw: { mode: 'execute', workflowType: 'bench_one_step', input: { n: 1 } },
      request: { url: `${url}/workflow/run`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_one_step', input: { n: 1 } }), expect: '"status":"completed"' },
    },
    {
      name: 'start (`POST /workflow`, raw `start()`)',
      concurrency: 50,
      target: 1.2,
      raw: { mode: 'start', workflowType: 'bench_noop', input: {} },
      request: { url: `${url}/workflow`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_noop', input: {} }) },
    },
  ];
  const figures: OperationCpu[] = [];
  for (const operation of operations) {
    const warmUp = Math.min(2, setup.seconds);
    await rawMicros(setup, operation, warmUp);
    await setup.load({ ...operation.request, connections: operation.concurrency, seconds: warmUp });
    const rounds: { raw: number; api: number; ratio: number }[] = [];
    for (let round = 0; round < setup.rounds; round++) {
      const rawFirst = round % 2 === 0;
      const first = await (rawFirst ? rawMicros(setup, operation) : apiMicros(setup, operation));
      const second = await (rawFirst ? apiMicros(setup, operation) : rawMicros(setup, operation));
      const [raw, api] = rawFirst ? [first, second] : [second, first];
      rounds.push({ raw, api, ratio: api / raw });
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)]!;
    figures.push({
      operation: operation.name,
      concurrency: operation.concurrency,
      rawMicros: median.raw,
      apiMicros: median.api,
      ratio: median.ratio,
      ratios: rounds.map(({ ratio }) => ratio),
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
      ['operation', 'concurrent', 'raw client, CPU per call', 'flowgate API, CPU per request', 'ratio', 'target', 'rounds'],
      ...figures.map((figure) => [
        figure.operation,
        String(figure.concurrency),
        micros(figure.rawMicros),
        micros(figure.apiMicros),
        figure.ratio.toFixed(2),
        `≤ ${figure.target}`,
        figure.ratios.map((ratio) => ratio.toFixed(2)).join(', '),
      ]),
    ],
    verdict: figures
      .map((figure) => `${figure.ratio <= figure.target ? 'Met' : '**Missed**'}: ${figure.operation.split(' (')[0]} ${figure.ratio.toFixed(2)} (target ≤ ${figure.target})`)
      .join('; '),
  };
}
