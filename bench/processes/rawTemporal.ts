// The references of figures 2 and 3: the raw @temporalio/client, in its own process, at the bench's concurrency.
// Usage: rawTemporal.ts '{"mode":"start"|"execute"|"describe","address":...,"taskQueue":...,"workflowType":...,
//   "input":{},"workflowId":...,"connections":50,"seconds":5}'   → one JSON line (LoadResult) on stdout, with
//   `cpuMicros`: this process's CPU time over the calls (connecting excluded).
import { Client, Connection } from '@temporalio/client';
import { rawRound, type RawRound } from './rawRound.js';

const spec = JSON.parse(process.argv[2] ?? '{}') as RawRound & { address: string; namespace?: string };
const connection = await Connection.connect({ address: spec.address });
const result = await rawRound(new Client({ connection, namespace: spec.namespace ?? 'default' }), spec);
await connection.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
