// Figure 14: does run-and-wait on Temporal get dearer as the API serves more runs? 2,000 `POST /workflow/run` in a
// row (10 at once) through the API as `npm start` runs it (bench/deployedProcesses.ts), in four blocks of 500: the
// API's whole-process CPU per request in each block, and its heap right after a full collection before the first
// and after each block. Target: the last 500 within 10 % of the first 500, and the heap after GC flat.
import { startDeployedApi, type DeployedApi } from './deployedProcesses.js';
import type { LoadResult, LoadSpec } from './processes/load.js';

const BLOCKS = 4;
const BLOCK_REQUESTS = 500;
const CONCURRENCY = 10;
/** The heap after GC may wobble by a few MiB (caches filling, pages of the JIT); growth with the runs served may not. */
const HEAP_SLACK_BYTES = 8 * 1024 * 1024;

export interface DriftBlock {
  requests: number;
  cpuMicrosPerRequest: number;
  heapAfterGcBytes: number;
  runsPerSecond: number;
}

export interface DriftFigure {
  title: string;
  table: string[][];
  verdict: string;
}

export async function measureRunAndWaitDrift(api: DeployedApi, load: (spec: Omit<LoadSpec, 'seconds'> & Partial<LoadSpec>) => Promise<LoadResult>): Promise<DriftFigure> {
  const heapAtStart = await api.heapAfterGc();
  const blocks: DriftBlock[] = [];
  for (let block = 0; block < BLOCKS; block++) {
    const before = await api.cpuMicros();
    const result = await load({
      url: `${api.url}/workflow/run`,
      method: 'POST',
      body: JSON.stringify({ workflowName: 'bench_one_step', input: { n: 1 } }),
      expect: '"status":"completed"',
      headers: { authorization: `Bearer ${api.token}` },
      connections: CONCURRENCY,
      maxRequests: BLOCK_REQUESTS,
      seconds: 600,
    });
    const after = await api.cpuMicros();
    if (result.errors > 0) throw new Error(`run-and-wait drift: ${result.errors} failed requests (${JSON.stringify(result.statuses)})`);
    blocks.push({ requests: result.requests, cpuMicrosPerRequest: (after - before) / result.requests, heapAfterGcBytes: await api.heapAfterGc(), runsPerSecond: result.rps });
  }
  const first = blocks[0]!;
  const last = blocks.at(-1)!;
  const cpuChange = last.cpuMicrosPerRequest / first.cpuMicrosPerRequest - 1;
  const heapGrowth = last.heapAfterGcBytes - heapAtStart;
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const met = cpuChange <= 0.1 && heapGrowth <= HEAP_SLACK_BYTES;
  return {
    title: `Figure 14: ${BLOCKS * BLOCK_REQUESTS} run-and-waits in a row on Temporal, ${CONCURRENCY} at once: CPU per request and heap after GC, block by block`,
    table: [
      ['block', 'requests', 'API CPU per request', 'runs/s', 'heap after GC'],
      ['before', '', '', '', mib(heapAtStart)],
      ...blocks.map((block, index) => [
        `${index * BLOCK_REQUESTS + 1}–${(index + 1) * BLOCK_REQUESTS}`,
        String(block.requests),
        `${(block.cpuMicrosPerRequest / 1000).toFixed(2)} ms`,
        block.runsPerSecond.toFixed(1),
        mib(block.heapAfterGcBytes),
      ]),
    ],
    verdict:
      `${met ? 'Met' : '**Missed**'}: the last ${BLOCK_REQUESTS} at most 10 % dearer than the first ${BLOCK_REQUESTS} in CPU per request ` +
      `(${cpuChange >= 0 ? '+' : ''}${(cpuChange * 100).toFixed(1)} %) and the heap after GC flat (${heapGrowth >= 0 ? '+' : ''}${mib(heapGrowth)} over the run, ` +
      `allowed ${mib(HEAP_SLACK_BYTES)}). The API as \`npm start\` runs it (access log on, a token set), with a preloaded probe that collects garbage and reads the heap only when signalled; its CPU from /proc/<pid>/stat`,
  };
}

/** Figure 14 on the Temporal dev server at `address`: its own deployed API (with the heap probe), stopped after. */
export async function runAndWaitDriftFigure(address: string, traceDir: string, load: Parameters<typeof measureRunAndWaitDrift>[1]): Promise<DriftFigure> {
  const api = await startDeployedApi(address, traceDir, { heapProbe: true });
  try {
    return await measureRunAndWaitDrift(api, load);
  } finally {
    await api.stop();
  }
}
