// Figure 12: what compressing answers costs the API process (docs/api.md, Compression). For a history page, the
// OpenAPI document and a /metrics scrape: the bytes on the wire and the server's CPU per request, plain, gzip and
// brotli; and the small status answer's throughput with and without Accept-Encoding (it stays uncompressed, and
// must stay as fast). CPU, read from the server process before and after each load, not throughput: on a shared
// machine throughput follows whatever else runs.
import { request } from 'undici';
import type { LoadResult, LoadSpec } from './processes/load.js';
import { runToEnd, type ServerProcess } from './processes.js';

export interface CompressionSetup {
  server: ServerProcess;
  url: string;
  rounds: number;
  /** A load of the bench's length. */
  load(spec: Omit<LoadSpec, 'seconds' | 'connections'> & Partial<LoadSpec>): Promise<LoadResult>;
}

export interface CompressionFigure {
  table: string[][];
  verdict: string;
  met: boolean;
}

/** What browsers, curl --compressed and undici's fetch send, and the two codings alone. */
const CODINGS = [
  { name: 'identity', acceptEncoding: undefined },
  { name: 'gzip', acceptEncoding: 'gzip' },
  { name: 'br', acceptEncoding: 'br' },
] as const;
/** Big answers are fewer per second: fewer connections keep the server busy without queueing past the run. */
const BIG_ANSWER_CONNECTIONS = 8;
const STATUS_CONNECTIONS = 50;
/** An even number: each order of the two status loads runs as often as the other. */
const STATUS_ROUNDS = 4;

/** 120 order lines, priced a step each: a history page of JSON as a workflow writes it. */
function orderInput(): unknown {
  const lines = Array.from({ length: 120 }, (_, index) => ({
    sku: `SKU-${String(10_000 + index * 37)}`,
    name: `${['Widget', 'Gadget', 'Bracket', 'Cable', 'Adapter'][index % 5]} ${index} (${['small', 'medium', 'large'][index % 3]})`,
    quantity: (index % 7) + 1,
    unitPrice: Math.round((3.5 + ((index * 7.31) % 120)) * 100) / 100,
    tags: index % 2 === 0 ? ['catalog', 'in-stock'] : ['special-order'],
  }));
  return { customer: 'customer-4711', lines };
}

const acceptHeaders = (acceptEncoding: string | undefined): Record<string, string> => (acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding });

async function bytesOf(url: string, acceptEncoding: string | undefined): Promise<{ bytes: number; coding: string }> {
  const response = await request(url, { headers: acceptHeaders(acceptEncoding) });
  const bytes = (await response.body.arrayBuffer()).byteLength;
  if (response.statusCode !== 200) throw new Error(`${url}: ${response.statusCode}`);
  return { bytes, coding: String(response.headers['content-encoding'] ?? 'identity') };
}

/** The server's CPU per request (µs) over one load, and the load's result. */
async function cpuPerRequest(setup: CompressionSetup, spec: Omit<LoadSpec, 'seconds' | 'connections'> & Partial<LoadSpec>): Promise<{ micros: number; result: LoadResult }> {
  const before = await setup.server.ask('cpu:read');
  const result = await setup.load(spec);
  const after = await setup.server.ask('cpu:read');
  if (result.errors > 0) throw new Error(`${spec.url}: ${result.errors} failed requests (${JSON.stringify(result.statuses)})`);
  return { micros: (after.cpu - before.cpu) / Math.max(1, result.requests), result };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
const micros = (value: number): string => `${value.toFixed(0)} µs`;

export async function measureCompression(setup: CompressionSetup): Promise<CompressionFigure> {
  const { url } = setup;
  const run = await request(`${url}/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'bench_order', workflowId: 'bench-compression-order', input: orderInput() }),
  });
  const ran = (await run.body.json()) as { status?: string };
  if (run.statusCode !== 200 || ran.status !== 'completed') throw new Error(`bench_order: ${run.statusCode} ${JSON.stringify(ran).slice(0, 300)}`);
  const answers = [
    { name: 'history page (`pageSize=100`)', url: `${url}/workflow/bench-compression-order/history?pageSize=100` },
    { name: '`/openapi.json`', url: `${url}/openapi.json` },
    { name: '`/metrics`', url: `${url}/metrics` },
  ];
  const table = [['answer', 'coding', 'bytes', 'server CPU per request', 'vs identity']];
  const costs: Record<string, number> = {};
  for (const answer of answers) {
    // Every coding once per round, in turn: a neighbour's drift (the machine, /metrics growing) hits all three alike.
    const rounds: Record<string, number[]> = {};
    for (const coding of CODINGS) {
      const headers = acceptHeaders(coding.acceptEncoding);
      await setup.load({ url: answer.url, headers, connections: BIG_ANSWER_CONNECTIONS, seconds: 1 });
    }
    for (let round = 0; round < setup.rounds; round++) {
      for (const coding of CODINGS) {
        const headers = acceptHeaders(coding.acceptEncoding);
        const { micros: cost } = await cpuPerRequest(setup, { url: answer.url, headers, connections: BIG_ANSWER_CONNECTIONS });
        (rounds[coding.name] ??= []).push(cost);
      }
    }
    const identity = median(rounds.identity!);
    for (const coding of CODINGS) {
      const { bytes, coding: sent } = await bytesOf(answer.url, coding.acceptEncoding);
      if (sent !== coding.name) throw new Error(`${answer.url} with ${coding.name} came as ${sent}`);
      const cost = median(rounds[coding.name]!);
      costs[`${answer.name} ${coding.name}`] = cost - identity;
      table.push([answer.name, coding.name, `${bytes} (${kib(bytes)})`, micros(cost), coding.name === 'identity' ? '' : `${cost - identity >= 0 ? '+' : ''}${micros(cost - identity)}`]);
    }
  }

  // The small status answer: below the threshold it goes out as before; Accept-Encoding costs a header at most.
  // Both loads once per round, their order swapped each round (a drifting machine favours neither).
  const statusUrl = `${url}/workflow/bench-status/status`;
  const status = { plain: { cpu: [] as number[], rps: [] as number[] }, accepting: { cpu: [] as number[], rps: [] as number[] } };
  const statusLoad = async (which: 'plain' | 'accepting') => {
    const headers: Record<string, string> = which === 'plain' ? {} : { 'accept-encoding': 'gzip, deflate, br' };
    await setup.load({ url: statusUrl, connections: STATUS_CONNECTIONS, headers, seconds: 1 });
    const { micros: cost, result } = await cpuPerRequest(setup, { url: statusUrl, connections: STATUS_CONNECTIONS, headers });
    status[which].cpu.push(cost);
    status[which].rps.push(result.rps);
  };
  for (let round = 0; round < STATUS_ROUNDS; round++) {
    for (const which of round % 2 === 0 ? (['plain', 'accepting'] as const) : (['accepting', 'plain'] as const)) await statusLoad(which);
  }
  const cpuRatio = median(status.accepting.cpu) / median(status.plain.cpu);
  const rpsRatio = median(status.accepting.rps) / median(status.plain.rps);
  const statusRow = (label: string, which: 'plain' | 'accepting', ratio: string) => [
    '`GET status` (small), 50 connections',
    label,
    '',
    `${micros(median(status[which].cpu))} (${median(status[which].rps).toFixed(0)} requests/s)`,
    ratio,
  ];
  table.push(statusRow('none asked', 'plain', ''));
  table.push(statusRow('`gzip, deflate, br` asked (sent as is)', 'accepting', `CPU ${cpuRatio.toFixed(2)}×, throughput ${rpsRatio.toFixed(2)}×`));
  // The app alone, in process: what the loads above measure through a socket and a machine that drifts.
  const inProcess = await runToEnd<Record<'on, plain' | 'on, accepting' | 'off, plain' | 'off, accepting', number>>('bench/processes/smallAnswerCost.mjs', { requests: 100_000, rounds: 5 });
  const appRow = (label: string, value: number) => ['`GET status` (small), the HTTP app in process', label, '', `${value.toFixed(1)} µs`, `${(value / inProcess['off, plain']).toFixed(2)}× of compression off`];
  table.push(appRow('compression off, none asked', inProcess['off, plain']));
  table.push(appRow('compression on, none asked', inProcess['on, plain']));
  table.push(appRow('compression on, `gzip, deflate, br` asked', inProcess['on, accepting']));
  const appRatio = inProcess['on, accepting'] / inProcess['off, plain'];
  const met = appRatio <= 1.05;
  return {
    table,
    met,
    verdict:
      `a small status answer to a request that accepts gzip and br cost the HTTP app ${appRatio.toFixed(2)}× its CPU with compression off (target ≤ 1.05×); ` +
      `through the socket the server's CPU per request was ${cpuRatio.toFixed(2)}× and its throughput ${rpsRatio.toFixed(2)}× (medians of ${STATUS_ROUNDS} alternating rounds, ` +
      `on a machine whose load drifted more than that between rounds); compressing the history page cost ${micros(costs['history page (`pageSize=100`) gzip']!)} (gzip) and ` +
      `${micros(costs['history page (`pageSize=100`) br']!)} (br) of server CPU per request; the document's compressed forms are made once and kept`,
  };
}
