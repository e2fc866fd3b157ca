// One measuring round of the raw @temporalio/client: `connections` callers for `seconds`, each calling in turn; the
// process's own CPU over the calls (process.cpuUsage(): every thread) in `cpuMicros`. The references of figures 2, 3
// and 9 (rawTemporal.ts, one round per process; rawTemporalRounds.ts, many rounds in one warm process).
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
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

export async function rawRound(client: Client, spec: RawRound): Promise<Record<string, unknown>> {
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
        if (errors === 0) process.stderr.write(`raw ${spec.mode} failed: ${error instanceof Error ? error.message : String(error)}\n`);
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
