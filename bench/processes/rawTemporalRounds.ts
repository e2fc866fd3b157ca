// Figure 9's reference: the raw @temporalio/client in one long-lived process, as an application that calls Temporal
// itself would run it: connected once and warm across rounds (rawRound.ts measures each).
// Usage: rawTemporalRounds.ts '{"address":...,"namespace":"default"}'; prints {"ready":true}, then reads one JSON
// round per stdin line (RawRound) and answers each with one JSON line (LoadResult with `cpuMicros`); with
// `"allocations":true` (and --expose-gc), `{"allocatedBytes":true}` answers the bytes allocated so far.
import { createInterface } from 'node:readline';
import { Client, Connection } from '@temporalio/client';
import { allocationCounter } from './allocations.mjs';
import { rawRound, type RawRound } from './rawRound.js';

const { address, namespace = 'default', allocations = false } = JSON.parse(process.argv[2] ?? '{}') as { address: string; namespace?: string; allocations?: boolean };
// Figure 9b (with --expose-gc): the bytes allocated from here on, read with `{"allocatedBytes":true}`.
const allocated = allocations ? allocationCounter() : undefined;
const connection = await Connection.connect({ address });
const client = new Client({ connection, namespace });

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  const message = JSON.parse(line) as RawRound | { allocatedBytes: true };
  const answer = 'allocatedBytes' in message ? { allocatedBytes: allocated?.() } : await rawRound(client, message);
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}
await connection.close();
