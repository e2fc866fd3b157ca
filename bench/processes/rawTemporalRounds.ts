// Figure 9's reference: the raw @temporalio/client in one long-lived process, as an application that calls Temporal
// itself would run it: connected once, warm, measuring its own CPU (process.cpuUsage(): every thread of the process,
// as /proc/<pid>/stat counts the API's) over each round's calls.
// Usage: rawTemporalRounds.ts '{"address":...,"namespace":"default"}'; prints {"ready":true}, then reads one JSON
// round per stdin line ({mode, taskQueue, workflowType, input, workflowId?, connections, seconds}) and answers each
// with one JSON line (LoadResult with `cpuMicros`).
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Client, Connection } from '@temporalio/client';
import { latencySummary } from './latencySummary.mjs';

export interface RawRound {
  mode: 'start' | 'execute' | 'describe';
  taskQueue: string;
  workflowType: string;
  input: unknown;
  /** The run `describe` reads. */
  workflowId?: string;
  connections: number;
  seconds: number;
}

const { address, namespace = 'default' } = JSON.parse(process.argv[2] ?? '{}') as { address: string; namespace?: string };
const connection = await Connection.connect({ address });
const client = new Client({ connection, namespace });

async function round(spec: RawRound): Promise<Record<string, unknown>> {
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + spec.seconds * 1000;
  const caller = async (): Promise<void> => {
    while (performance.now() < deadline) {
      const options = { taskQueue: spec.taskQueue, workflowId: `raw-${randomUUID()}`, args: [spec.input] };
      const started = performance.now();
      try {
        if (spec.mode === 'start') await client.workflow.start(spec.workflowType, options);
        else if (spec.mode === 'describe') await client.workflow.getHandle(spec.workflowId!).describe();
        else await client.workflow.execute(spec.workflowType, options);
        latencies.push(performance.now() - started);
      } catch (error) {
        if (errors === 0) process.stderr.write(`rawTemporalRounds: ${spec.mode} failed: ${error instanceof Error ? error.message : String(error)}\n`);
        errors += 1;
      }
    }
  };
  const begun = performance.now();
  const cpuBefore = process.cpuUsage();
  await Promise.all(Array.from({ length: spec.connections }, caller));
  const cpu = process.cpuUsage(cpuBefore);
  return { ...latencySummary(latencies, errors, (performance.now() - begun) / 1000), cpuMicros: cpu.user + cpu.system };
}

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await round(JSON.parse(line) as RawRound))}\n`);
}
await connection.close();
