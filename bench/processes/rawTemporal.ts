// The references of figures 2, 3 and 9: the raw @temporalio/client, in its own process, at the bench's concurrency.
// Usage: rawTemporal.ts '{"mode":"start"|"execute"|"describe","address":...,"taskQueue":...,"workflowType":...,
//   "input":{},"workflowId":...,"connections":50,"seconds":5}'   → one JSON line (LoadResult) on stdout, with
//   `cpuMicros`: this process's CPU time over the calls (connecting excluded), for figure 9's CPU per call.
import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { latencySummary } from './latencySummary.mjs';

interface RawSpec {
  mode: 'start' | 'execute' | 'describe';
  /** The run `describe` reads. */
  workflowId?: string;
  address: string;
  namespace?: string;
  taskQueue: string;
  workflowType: string;
  input: unknown;
  connections: number;
  seconds: number;
}

const spec = JSON.parse(process.argv[2] ?? '{}') as RawSpec;
const connection = await Connection.connect({ address: spec.address });
const client = new Client({ connection, namespace: spec.namespace ?? 'default' });
const latencies: number[] = [];
let errors = 0;
const deadline = performance.now() + spec.seconds * 1000;

async function worker(): Promise<void> {
  while (performance.now() < deadline) {
    const options = { taskQueue: spec.taskQueue, workflowId: `raw-${randomUUID()}`, args: [spec.input] };
    const started = performance.now();
    try {
      if (spec.mode === 'start') await client.workflow.start(spec.workflowType, options);
      else if (spec.mode === 'describe') await client.workflow.getHandle(spec.workflowId!).describe();
      else await client.workflow.execute(spec.workflowType, options);
      latencies.push(performance.now() - started);
    } catch (error) {
      if (errors === 0) process.stderr.write(`rawTemporal: ${spec.mode} failed: ${error instanceof Error ? `${error.message}: ${(error as { cause?: Error }).cause?.message ?? ""}` : String(error)}\n`);
      errors += 1;
    }
  }
}

const begun = performance.now();
const cpuBefore = process.cpuUsage();
await Promise.all(Array.from({ length: spec.connections }, worker));
const cpu = process.cpuUsage(cpuBefore);
const elapsed = (performance.now() - begun) / 1000;
await connection.close();
process.stdout.write(`${JSON.stringify({ ...latencySummary(latencies, errors, elapsed), cpuMicros: cpu.user + cpu.system })}\n`);
