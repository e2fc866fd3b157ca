// Figure 9's reference: the raw @temporalio/client in one long-lived process, as an application that calls Temporal
// itself would run it: connected once and warm across rounds (rawRound.ts measures each).
// Usage: rawTemporalRounds.ts '{"address":...,"namespace":"default"}'; prints {"ready":true}, then reads one JSON
// round per stdin line (RawRound) and answers each with one JSON line (LoadResult with `cpuMicros`).
import { createInterface } from 'node:readline';
import { Client, Connection } from '@temporalio/client';
import { rawRound, type RawRound } from './rawRound.js';

const { address, namespace = 'default' } = JSON.parse(process.argv[2] ?? '{}') as { address: string; namespace?: string };
const connection = await Connection.connect({ address });
const client = new Client({ connection, namespace });

process.stdout.write(`${JSON.stringify({ ready: true })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  if (line.trim() === '') continue;
  process.stdout.write(`${JSON.stringify(await rawRound(client, JSON.parse(line) as RawRound))}\n`);
}
await connection.close();
