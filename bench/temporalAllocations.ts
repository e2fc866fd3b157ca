// Figure 9b: the bytes a request makes V8 allocate on Temporal, beside the raw @temporalio/client's call and figure
// 9's bare node:http floor, each in a process of its own started for this figure with an allocation counter
// (processes/allocations.mjs: exact between two forced full collections). Figure 9's CPU is measured without it.
import { startBareTemporalApi, startDeployedApi, startRawClient, type DeployedApi, type RawClientProcess } from './deployedProcesses.js';
import type { LoadResult, LoadSpec } from './processes/load.js';
import { figureOperations, type Operation } from './temporalCpu.js';

type Load = (spec: Omit<LoadSpec, 'seconds'> & Partial<LoadSpec>) => Promise<LoadResult>;

async function apiBytes(load: Load, api: DeployedApi, operation: Operation, seconds: number): Promise<number> {
  const before = await api.allocatedBytes();
  const request = { ...operation.request, url: `${api.url}${operation.request.url}` };
  const result = await load({ ...request, headers: { authorization: `Bearer ${api.token}` }, connections: operation.concurrency, seconds });
  const after = await api.allocatedBytes();
  if (result.errors > 0 || result.requests === 0) throw new Error(`${operation.name}: ${result.errors} of ${result.requests + result.errors} requests failed`);
  return (after - before) / result.requests;
}

async function rawBytes(raw: RawClientProcess, operation: Operation, seconds: number): Promise<number> {
  const before = await raw.allocatedBytes();
  const result = await raw.round({ ...operation.raw, taskQueue: 'main', connections: operation.concurrency, seconds });
  const after = await raw.allocatedBytes();
  if (result.errors > 0 || result.requests === 0) throw new Error(`raw ${operation.name}: ${result.errors} of ${result.requests + result.errors} calls failed`);
  return (after - before) / result.requests;
}

/** Hundreds of starts per side are enough for a mean of bytes per request. */
const START_ROUND_SECONDS = 2;

const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;

/** One round per side and operation after a warm-up round of each (the JIT's and the caches' first allocations). */
export async function allocationFigure({ address, traceDir, statusRun, load, seconds }: { address: string; traceDir: string; statusRun: string; load: Load; seconds: number }) {
  const started: { stop(): Promise<void> }[] = [];
  try {
    const api = await startDeployedApi(address, traceDir, { allocations: true });
    started.push(api);
    const bare = await startBareTemporalApi(address, { allocations: true });
    started.push(bare);
    const raw = await startRawClient(address, { allocations: true });
    started.push(raw);
    const rows: string[][] = [];
    for (const operation of figureOperations(statusRun)) {
      // Starts are kept short: each leaves a run queued on the worker, and the figures after this one wait behind them.
      const length = operation.raw.mode === 'start' ? START_ROUND_SECONDS : seconds * operation.lengthFactor;
      const warmUp = Math.min(2, length);
      await rawBytes(raw, operation, warmUp);
      await apiBytes(load, bare, operation, warmUp);
      await apiBytes(load, api, operation, warmUp);
      const rawPerCall = await rawBytes(raw, operation, length);
      const barePerRequest = await apiBytes(load, bare, operation, length);
      const apiPerRequest = await apiBytes(load, api, operation, length);
      rows.push([operation.name.split(' (')[0]!, kib(rawPerCall), kib(barePerRequest), kib(apiPerRequest), kib(apiPerRequest - barePerRequest)]);
    }
    return {
      title: 'Figure 9b: bytes allocated per request on Temporal (V8 heap), beside the raw @temporalio/client per call',
      table: [['operation', 'raw client, per call', 'bare node:http over the raw client, per request (floor)', 'flowgate API, per request', 'flowgate beyond the floor'], ...rows],
      verdict:
        `One round per side of ${seconds} s (run-and-wait ${2 * seconds} s, start ${START_ROUND_SECONDS} s) after a warm-up of up to 2 s, with figure 9's loads and processes, each ` +
        'counting its allocations (bench/processes/allocations.mjs: V8 GCProfiler, heap in use before and after every collection, a full ' +
        'collection forced before and after the round). No target: what a request allocates beyond the floor, accounted for in the notes',
    };
  } finally {
    await Promise.all(started.map((process) => process.stop()));
  }
}
