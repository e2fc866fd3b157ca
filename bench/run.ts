// `npm run bench`: each figure beside its reference, measured in the same run, written to docs/performance.md. Not
// part of `npm test`: speed goals live here, never as timed assertions in tests. BENCH_SECONDS (default 5) is each
// measurement's length, BENCH_CPU_SECONDS (default 8) figure 9's rounds; BENCH_ONLY=1,4 runs some figures (and
// replaces only their sections of docs/performance.md); BENCH_SCALE_RUNS (default 1,000,000) the closed runs of
// figure 10's data directory.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { LoadResult, LoadSpec } from './processes/load.js';
import { ROOT, runToEnd, startHelper, startServer, type ServerProcess } from './processes.js';
import { measureUi, uiFigureRows } from './ui.js';
import { greedyEventStreams, greedyReaders, pipelining } from './greedyClients.js';
import { CPU_ROUND_SECONDS, cpuFigure } from './temporalCpu.js';
import { allocationFigure } from './temporalAllocations.js';
import { measureScale, scaleFigureRows } from './scale.js';
import { runAndWaitDriftFigure } from './runAndWaitDrift.js';
import { startTemporalFlowgate } from './temporalFlowgate.js';
import { durableSpeedRows, measureDurableSpeed } from './durableSpeed.js';
import { figureId, replaceFigures } from './reportSections.js';
import { measureCompression } from './compression.js';
import { keyedControlFigure } from './keyedControl.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = Math.min(3, SECONDS);
const CONNECTIONS = 50;
const FOLLOWERS = 1000;
const ROUNDS = 3;
const BIG_RESULT_BYTES = 30 * 1024 * 1024;
const ALL_FIGURES = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
const SCALE_RUNS = Number(process.env.BENCH_SCALE_RUNS ?? 1_000_000);
const ONLY = new Set(process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map(Number) : ALL_FIGURES);
const MiB = 1024 * 1024;

interface Figure {
  title: string;
  table: string[][];
  verdict: string;
}
const figures: Figure[] = [];
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const load = (spec: Omit<LoadSpec, 'seconds' | 'connections'> & Partial<LoadSpec>) =>
  runToEnd<LoadResult>('bench/processes/load.ts', { connections: CONNECTIONS, seconds: SECONDS, ...spec });
const warmThenLoad = async (spec: Omit<LoadSpec, 'seconds' | 'connections'> & Partial<LoadSpec>) => {
  await load({ ...spec, seconds: WARM_UP_SECONDS });
  return load(spec);
};
const loadRow = (name: string, result: LoadResult, unit = 'requests/s') => [name, `${result.rps.toFixed(0)} ${unit}`, ms(result.p50), ms(result.p99), String(result.errors)];
const ms = (value: number) => `${value.toFixed(2)} ms`;
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;
const verdict = (met: boolean, text: string) => `${met ? 'Met' : '**Missed**'}: ${text}`;
const LOAD_HEADER = ['run', 'throughput', 'p50', 'p99', 'errors'];

async function withServer<T>(entry: string, env: Record<string, string>, body: (server: ServerProcess, url: string) => Promise<T>): Promise<T> {
  const server = startServer(entry, env);
  try {
    const { url } = await server.ready;
    return await body(server, url as string);
  } finally {
    await server.stop();
  }
}

async function figure1and6(traceDir: string): Promise<void> {
  // Both servers run at once and are loaded in turn, ROUNDS times: on a shared machine the speed drifts between
  // minutes, so each ratio compares neighbours, and the median round is reported.
  const bareServer = startServer('bench/processes/bareServer.mjs');
  const contractServer = startServer('bench/processes/bareServer.mjs', { BARE_CONTRACT_HEADERS: '1' });
  // The default configuration writes an access line per request (LOG_LEVEL=info): loaded beside the quiet one.
  const loggingServer = startServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: traceDir, BENCH_STATUS_RUN: 'bench-status-logged', BENCH_LOG_LEVEL: 'info' });
  try {
    const { url: bareUrl } = await bareServer.ready;
    const { url: contractUrl } = await contractServer.ready;
    const { url: loggingUrl } = await loggingServer.ready;
    await withServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: traceDir, BENCH_STATUS_RUN: 'bench-status' }, async (server, url) => {
      if (ONLY.has(1)) await figure1WithAutocannon(traceDir, bareUrl);
      await server.ask('gc');
      const idle = await server.ask('rss:reset');
      const statusUrl = `${url}/workflow/bench-status/status`;
      const rounds: LoggingRound[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const measure = round === 0 ? warmThenLoad : load;
        const bare = await measure({ url: `${bareUrl}/` });
        const contract = await measure({ url: `${contractUrl}/` });
        const flowgate = await withCpu(server, () => measure({ url: statusUrl }));
        const logged = ONLY.has(1) ? await withCpu(loggingServer, () => measure({ url: `${loggingUrl}/workflow/bench-status-logged/status` })) : flowgate;
        // The first round's CPU includes its warm-up's requests, which the load does not count.
        rounds.push({ bare, contract, flowgate, logged, ratio: flowgate.rps / bare.rps, cpuCounted: round > 0 });
      }
      const underLoad = await server.ask('rss:read');
      const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)]!;
      if (ONLY.has(1)) {
        figures.push({
          title: `Figure 1: \`GET /workflow/{id}/status\` on the memory engine, ${CONNECTIONS} connections`,
          table: [
            LOAD_HEADER,
            loadRow('bare node:http, same JSON', median.bare),
            loadRow("bare node:http, same JSON and the contract's response headers", median.contract),
            loadRow('flowgate, memory engine, LOG_LEVEL=error', median.flowgate),
            loadRow('flowgate, memory engine, default configuration (LOG_LEVEL=info: an access line per request)', median.logged),
          ],
          verdict: `${verdict(
            median.ratio >= 0.85,
            `${median.ratio.toFixed(2)} of the bare server (target ≥ 0.85), ${(median.flowgate.rps / median.contract.rps).toFixed(2)} of the bare server with the contract's headers; the median of ${ROUNDS} alternating rounds, whose ratios to the bare server were ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}`,
          )}; ${loggingVerdict(rounds)}`,
        });
      }
      if (!ONLY.has(6)) return;
      // The result is produced before the measurement: only returning it counts.
      await postJson(`${url}/workflow`, { workflowName: 'bench_big_result', input: { bytes: BIG_RESULT_BYTES }, workflowId: 'bench-big' });
      await waitForStatus(url, 'bench-big', 'completed');
      await server.ask('gc');
      const beforeResult = await server.ask('rss:reset');
      const response = await request(`${url}/workflow/bench-big/result`);
      let received = 0;
      for await (const chunk of response.body) received += (chunk as Buffer).length;
      const duringResult = await server.ask('rss:read');
      const added = duringResult.peak - beforeResult.current;
      figures.push({
        title: 'Figure 6: peak RSS of the flowgate process (memory engine)',
        table: [
          ['moment', 'RSS', 'target'],
          ['idle, after start and GC', mib(idle.current), '< 100 MiB'],
          [`peak under figure 1's load`, mib(underLoad.peak), ''],
          [`before \`GET /result\` of a ${mib(BIG_RESULT_BYTES)} result (after GC)`, mib(beforeResult.current), ''],
          [`peak while returning it (${mib(received)} of JSON sent)`, mib(duringResult.peak), `adds < ${mib(4 * BIG_RESULT_BYTES)}`],
        ],
        verdict: `${verdict(idle.current < 100 * MiB, `idle ${mib(idle.current)}`)}; ${verdict(added < 4 * BIG_RESULT_BYTES, `returning the result added ${mib(added)} = ${(added / BIG_RESULT_BYTES).toFixed(2)}× its size (target < 4×)`)}`,
      });
    });
  } finally {
    await Promise.all([bareServer.stop(), contractServer.stop(), loggingServer.stop()]);
  }
}

/**
 * Figure 1 again with autocannon as the load generator and flowgate in its default configuration (access log on,
 * written to a pipe the bench reads), against the same bare server: alternating rounds, the median ratio.
 */
async function figure1WithAutocannon(traceDir: string, bareUrl: string): Promise<void> {
  const cannon = (url: string, seconds = SECONDS) => runToEnd<LoadResult>('bench/processes/autocannonLoad.mjs', { url, connections: CONNECTIONS, seconds });
  await withServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: traceDir, BENCH_STATUS_RUN: 'bench-status', BENCH_DEFAULT_CONFIG: '1' }, async (_server, url) => {
    const statusUrl = `${url}/workflow/bench-status/status`;
    await cannon(`${bareUrl}/`, WARM_UP_SECONDS);
    await cannon(statusUrl, WARM_UP_SECONDS);
    const rounds: { bare: LoadResult; flowgate: LoadResult; ratio: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const bare = await cannon(`${bareUrl}/`);
      const flowgate = await cannon(statusUrl);
      rounds.push({ bare, flowgate, ratio: flowgate.rps / bare.rps });
    }
    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)]!;
    figures.push({
      title: `Figure 1b: \`GET /workflow/{id}/status\` on the memory engine, default configuration (access log on), autocannon, ${CONNECTIONS} connections`,
      table: [LOAD_HEADER, loadRow('bare node:http, same JSON (autocannon)', median.bare), loadRow('flowgate, memory engine, access log on (autocannon)', median.flowgate)],
      verdict: verdict(
        median.ratio >= 0.5,
        `${median.ratio.toFixed(2)} of the bare server (target ≥ 0.5); the median of ${ROUNDS} alternating rounds: ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}`,
      ),
    });
  });
}

interface LoggingRound {
  bare: LoadResult;
  contract: LoadResult;
  flowgate: LoadResult & { cpuMicros: number };
  logged: LoadResult & { cpuMicros: number };
  ratio: number;
  cpuCounted: boolean;
}

/** A load and the server's own CPU over it (all its threads, from its IPC probe), as `cpuMicros`. */
async function withCpu(server: ServerProcess, run: () => Promise<LoadResult>): Promise<LoadResult & { cpuMicros: number }> {
  const before = (await server.ask('cpu:read')).cpu;
  const result = await run();
  return { ...result, cpuMicros: (await server.ask('cpu:read')).cpu - before };
}

/**
 * The access log's cost: the default configuration within 10 % of LOG_LEVEL=error, round by round. Beside the
 * throughput ratio, each server's own CPU per request: it depends less on what else the 2 cores run.
 */
function loggingVerdict(rounds: LoggingRound[]): string {
  const ratios = rounds.map((round) => round.logged.rps / round.flowgate.rps).sort((a, b) => a - b);
  const median = ratios[Math.floor(ratios.length / 2)]!;
  const perRequest = (result: LoadResult & { cpuMicros: number }) => result.cpuMicros / result.requests;
  const counted = rounds.filter((round) => round.cpuCounted);
  const cpu = counted.map((round) => `${perRequest(round.flowgate).toFixed(0)} → ${perRequest(round.logged).toFixed(0)} µs`).join(', ');
  return verdict(
    median >= 0.9,
    `the default configuration (access log on) at ${median.toFixed(2)} of LOG_LEVEL=error (target ≥ 0.90; per round ${ratios.map((r) => r.toFixed(2)).join(', ')}); ` +
      `server CPU per request, LOG_LEVEL=error → default, in the rounds after the first: ${cpu}`,
  );
}

async function figure4(traceDir: string): Promise<void> {
  const inProcess = await runToEnd<LoadResult>('bench/processes/inProcess.mjs', { connections: CONNECTIONS, seconds: SECONDS }, { TRACE_DIR: traceDir });
  const overHttp = await withServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: traceDir }, (_server, url) =>
    warmThenLoad({ url: `${url}/workflow/run`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_noop', input: { n: 1 } }), expect: '"status":"completed"' }),
  );
  const ratio = overHttp.rps / inProcess.rps;
  figures.push({
    title: `Figure 4: trivial runs through \`POST /workflow/run\` on the memory engine, ${CONNECTIONS} concurrent`,
    table: [LOAD_HEADER, loadRow('in-process (api.runAndWait, no HTTP)', inProcess, 'runs/s'), loadRow('POST /workflow/run over HTTP', overHttp, 'runs/s')],
    verdict: `${verdict(ratio >= 0.5, `${ratio.toFixed(2)} of in-process (target ≥ 0.5)`)}; ${verdict(inProcess.rps >= 20_000, `in-process ${inProcess.rps.toFixed(0)} runs/s (target ≥ 20,000)`)}`,
  });
}

async function figure5(traceDir: string): Promise<void> {
  await withServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: traceDir, BENCH_STATUS_RUN: 'bench-status' }, async (_server, url) => {
    const started = await load({
      url: `${url}/workflow`,
      method: 'POST',
      body: JSON.stringify({ workflowName: 'bench_waits', input: {}, workflowId: 'follow-{{seq}}' }),
      maxRequests: FOLLOWERS,
      seconds: 120,
    });
    if (started.requests !== FOLLOWERS) throw new Error(`started ${started.requests} of ${FOLLOWERS} waiting runs: ${JSON.stringify(started.statuses)}`);
    const statusUrl = `${url}/workflow/bench-status/status`;
    const without = await warmThenLoad({ url: statusUrl });
    const followers = startHelper('bench/processes/sseFollowers.ts', { baseUrl: url, workflowIds: Array.from({ length: FOLLOWERS }, (_, i) => `follow-${i + 1}`) });
    const opened = await followers.ready;
    const withFollowers = await warmThenLoad({ url: statusUrl });
    await followers.stop();
    const ratio = withFollowers.p99 / without.p99;
    figures.push({
      title: `Figure 5: \`GET status\` with ${FOLLOWERS} SSE history followers open (memory engine)`,
      table: [LOAD_HEADER, loadRow('without followers', without), loadRow(`with ${opened.open} open history streams (${opened.failed} failed)`, withFollowers)],
      verdict: verdict(ratio <= 2 && opened.open === FOLLOWERS, `p99 ${ratio.toFixed(2)}× without them (target ≤ 2×)`),
    });
  });
}

async function figure7(traceDir: string): Promise<void> {
  await withServer('bench/processes/flowgateServer.mjs', { TRACE_DIR: traceDir }, async (_server, url) => {
    const started = await load({ url: `${url}/workflow`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_noop', input: {}, workflowId: 'ui-{{seq}}' }), maxRequests: 1000, seconds: 120 });
    if (started.requests !== 1000 || started.errors !== 0) throw new Error(`started ${started.requests} runs for the UI, ${started.errors} errors`);
    const rows = uiFigureRows(await measureUi(url));
    figures.push({ title: 'Figure 7: the browser UI with 1,000 runs (memory engine, headless Chromium)', table: rows.table, verdict: verdict(rows.met, rows.verdict) });
  });
}

/** Figure 12: what compressing answers costs (bench/compression.ts). */
async function figure12(traceDir: string): Promise<void> {
  await withServer('bench/processes/flowgateServer.mjs', { ENGINE: 'memory', TRACE_DIR: traceDir, BENCH_STATUS_RUN: 'bench-status' }, async (server, url) => {
    const figure = await measureCompression({ server, url, rounds: ROUNDS, load });
    figures.push({
      title: 'Figure 12: compressed answers (memory engine): bytes and server CPU per request, and the small status answer',
      table: figure.table,
      verdict: verdict(figure.met, figure.verdict),
    });
  });
}

/** Figure 8: greedy clients (docs/reliability.md): their goals are measured here; tests/contract/unreadAnswers.test.ts asserts the bound. */
async function figure8(): Promise<void> {
  const readers = [await greedyReaders('embedded'), await greedyReaders('memory')];
  const streams = [await greedyEventStreams('embedded'), await greedyEventStreams('memory')];
  const pipelined = await pipelining();
  // A client that does not read keeps at most a page (1 MiB) beside what they all share (the one parsed trace): RSS
  // after a full collection. The peak also counts what the server made and dropped while the kernel took each
  // client's first megabytes, not yet collected: bounded by the figure's first target.
  const withinPages = (clients: number, scene: { heldAfterGcMiB: number; rssGrowthMiB: number; healthMaxMs: number }) =>
    scene.heldAfterGcMiB < clients + 64 && scene.rssGrowthMiB < 768 && scene.healthMaxMs < 1000;
  const readersMet = readers.every((scene) => withinPages(scene.clients, scene));
  const streamsMet = streams.every((scene) => withinPages(scene.streams, scene));
  const pipelinedMet = pipelined.healthMaxMs < 2000 && pipelined.answersBuilt < pipelined.connections * pipelined.pipelined;
  const engineName = (engine: string) => (engine === 'embedded' ? 'embedded, durable' : 'memory');
  figures.push({
    title: 'Figure 8: greedy clients against one server (embedded engine): answers nobody reads',
    table: [
      ['scene', 'RSS before → peak', 'peak growth', 'RSS held after GC (heap)', '/health p50', '/health worst', 'answers built'],
      ...readers.map((scene) => [
        `${scene.clients} clients asking a ${(scene.traceBytes / 1e6).toFixed(0)} MB trace-log or the first page (${(scene.pageBytes / 1e6).toFixed(1)} MB of ${scene.historyPages}) of a ${(scene.historyBytes / 1e6).toFixed(0)} MB history, reading nothing, ${scene.seconds} s (${engineName(scene.engine)})`,
        `${scene.rssBeforeMiB} → ${scene.rssPeakMiB} MiB`,
        `${scene.rssGrowthMiB} MiB`,
        `${scene.heldAfterGcMiB} MiB (${scene.heapHeldMiB} MiB)`,
        ms(scene.healthP50Ms),
        ms(scene.healthMaxMs),
        '—',
      ]),
      ...streams.map((scene) => [
        `${scene.streams} event streams of the ${(scene.historyBytes / 1e6).toFixed(0)} MB history, reading nothing, ${scene.seconds} s (${engineName(scene.engine)})`,
        `${scene.rssBeforeMiB} → ${scene.rssPeakMiB} MiB`,
        `${scene.rssGrowthMiB} MiB`,
        `${scene.heldAfterGcMiB} MiB (${scene.heapHeldMiB} MiB)`,
        ms(scene.healthP50Ms),
        ms(scene.healthMaxMs),
        '—',
      ]),
      [
        `${pipelined.connections} connections pipelining ${pipelined.pipelined} \`GET /openapi.json\` each, reading nothing, ${pipelined.seconds} s (memory)`,
        `${pipelined.rssBeforeMiB} → ${pipelined.rssPeakMiB} MiB`,
        `${pipelined.rssGrowthMiB} MiB`,
        '—',
        ms(pipelined.healthP50Ms),
        ms(pipelined.healthMaxMs),
        `${pipelined.answersBuilt} of ${pipelined.connections * pipelined.pipelined}`,
      ],
    ],
    verdict: verdict(
      readersMet && streamsMet && pipelinedMet,
      'targets: readers and streams, RSS held after a full collection < 1 MiB a client + 64 MiB, RSS peak growth < 768 MiB and /health < 1 s; pipelining, /health < 2 s and answers built only as far as clients take them',
    ),
  });
}

/** Figure 10: the durable embedded engine holding a million closed runs, started and read as an operator would. */
async function figure10(): Promise<void> {
  const rows = scaleFigureRows(await measureScale(SCALE_RUNS));
  figures.push({
    title: `Figure 10: \`flowgate serve\` on a data directory of ${SCALE_RUNS.toLocaleString('en')} closed runs (durable embedded engine)`,
    table: rows.table,
    verdict: rows.verdict,
  });
}

/** Figure 11: the durable embedded engine's throughput beside the memory engine's and Temporal's, /health meanwhile. */
async function figure11(traceDir: string): Promise<void> {
  const rows = durableSpeedRows(await measureDurableSpeed({ traceDir, connections: CONNECTIONS, seconds: SECONDS, warmUpSeconds: WARM_UP_SECONDS, rounds: ROUNDS, load, log }));
  figures.push({
    title: `Figure 11: a two-step workflow on the durable embedded engine, beside the memory engine and Temporal, ${CONNECTIONS} concurrent`,
    table: rows.table,
    verdict: `${rows.verdict}. The median of ${ROUNDS} rounds in rotating order, all four flowgates up throughout; \`/health\` probed every 20 ms on connections of its own while each load ran, p99 over all rounds`,
  });
}

async function temporalFigures(traceDir: string): Promise<void> {
  log('starting the Temporal dev server, its worker and the API');
  const temporal = await startTemporalFlowgate(traceDir);
  const { server, url } = temporal;
  try {
    const raw = (mode: 'start' | 'execute', workflowType: string, input: unknown, connections: number) =>
      runToEnd<LoadResult>('bench/processes/rawTemporal.ts', { mode, address: temporal.address, taskQueue: 'main', workflowType, input, connections, seconds: SECONDS });
    // Before figure 2: its thousands of started runs queue on the worker, and an execute() measured behind that
    // backlog would time the queue, not the run.
    if (ONLY.has(3)) {
      await raw('execute', 'bench_one_step', { n: 1 }, 1);
      const rawExecute = await raw('execute', 'bench_one_step', { n: 1 }, 1);
      const runs = await warmThenLoad({ url: `${url}/workflow/run`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_one_step', input: { n: 1 } }), connections: 1, expect: '"status":"completed"' });
      const overhead = runs.p50 - rawExecute.p50;
      figures.push({
        title: 'Figure 3: latency of a one-step workflow through `POST /workflow/run` on Temporal, one at a time',
        table: [LOAD_HEADER, loadRow('raw @temporalio/client execute()', rawExecute, 'runs/s'), loadRow('POST /workflow/run', runs, 'runs/s')],
        verdict: verdict(overhead < 2, `p50 overhead ${ms(overhead)}, p99 overhead ${ms(runs.p99 - rawExecute.p99)} (target: p50 < 2 ms)`),
      });
    }
    if (ONLY.has(9)) {
      log('figure 9');
      await postJson(`${url}/workflow/run`, { workflowName: 'bench_noop', input: {}, workflowId: 'bench-status-temporal' });
      // 9b first: figure 9's starts leave thousands of runs queued on the worker, behind which 9b's run-and-waits would
      // crawl; 9b's own few starts are worked off while figure 9 measures status.
      log('figure 9b');
      figures.push(await allocationFigure({ address: temporal.address, traceDir, statusRun: 'bench-status-temporal', load, seconds: CPU_ROUND_SECONDS }));
      figures.push(await cpuFigure({ address: temporal.address, traceDir, statusRun: 'bench-status-temporal', load }));
    }
    if (ONLY.has(14)) {
      log('figure 14');
      figures.push(await runAndWaitDriftFigure(temporal.address, traceDir, load));
    }
    if (ONLY.has(2)) {
      await raw('start', 'bench_noop', {}, CONNECTIONS); // warm-up of the server and worker, discarded
      await load({ url: `${url}/workflow`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_noop', input: {} }), seconds: WARM_UP_SECONDS });
      // Alternating rounds, as in figure 1: the dev server's speed drifts as its history grows.
      const rounds: { rawStarts: LoadResult; starts: LoadResult; ratio: number }[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // ABBA order: the server slows as it accumulates runs, which would favour whichever always went first.
        const measureRaw = () => raw('start', 'bench_noop', {}, CONNECTIONS);
        const measureFlowgate = () => load({ url: `${url}/workflow`, method: 'POST', body: JSON.stringify({ workflowName: 'bench_noop', input: {} }) });
        const rawFirst = round % 2 === 0;
        const first = await (rawFirst ? measureRaw() : measureFlowgate());
        const second = await (rawFirst ? measureFlowgate() : measureRaw());
        const [rawStarts, starts] = rawFirst ? [first, second] : [second, first];
        rounds.push({ rawStarts, starts, ratio: starts.rps / rawStarts.rps });
      }
      const { rawStarts, starts, ratio } = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(ROUNDS / 2)]!;
      figures.push({
        title: `Figure 2: starts through \`POST /workflow\` on the Temporal dev server, ${CONNECTIONS} concurrent`,
        table: [LOAD_HEADER, loadRow('raw @temporalio/client start()', rawStarts, 'starts/s'), loadRow('POST /workflow', starts, 'starts/s')],
        verdict: verdict(ratio >= 0.9, `${ratio.toFixed(2)} of raw (target ≥ 0.9); the median of ${ROUNDS} alternating rounds: ${rounds.map((r) => r.ratio.toFixed(2)).join(', ')}`),
      });
    }
  } finally {
    await temporal.stop();
  }
}

async function postJson(url: string, body: unknown): Promise<void> {
  const response = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await response.body.text();
  if (response.statusCode >= 300) throw new Error(`POST ${url}: ${response.statusCode} ${text.slice(0, 300)}`);
}

async function waitForStatus(url: string, workflowId: string, status: string): Promise<void> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const response = await request(`${url}/workflow/${workflowId}/status`);
    const body = (await response.body.json()) as { status?: string };
    if (body.status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${workflowId} did not become ${status}`);
}

function markdownTable(rows: string[][]): string {
  const [header, ...body] = rows;
  return [`| ${header!.join(' | ')} |`, `|${header!.map(() => '---').join('|')}|`, ...body.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

const began = Date.now();
log('building dist/ with the bench workflows (npm run build:local)');
execFileSync('npm', ['run', 'build:local', '--silent'], { cwd: ROOT, stdio: 'inherit' });
const traceDir = await mkdtemp(join(tmpdir(), 'fg-bench-'));
try {
  if (ONLY.has(1) || ONLY.has(6)) {
    log('figures 1 and 6');
    await figure1and6(traceDir);
  }
  if (ONLY.has(4)) {
    log('figure 4');
    await figure4(traceDir);
  }
  if (ONLY.has(5)) {
    log('figure 5');
    await figure5(traceDir);
  }
  if (ONLY.has(7)) {
    log('figure 7');
    await figure7(traceDir);
  }
  if (ONLY.has(8)) {
    log('figure 8');
    await figure8();
  }
  if (ONLY.has(10)) {
    log(`figure 10: generating ${SCALE_RUNS.toLocaleString('en')} closed runs`);
    await figure10();
  }
  if (ONLY.has(11)) {
    log('figure 11');
    await figure11(traceDir);
  }
  if (ONLY.has(12)) {
    log('figure 12');
    await figure12(traceDir);
  }
  if (ONLY.has(2) || ONLY.has(3) || ONLY.has(9) || ONLY.has(14)) await temporalFigures(traceDir);
  // Its own dev server: the thousands of runs figure 2 leaves behind would slow its long history's reads.
  if (ONLY.has(13)) figures.push(await keyedControlFigure(traceDir, log));
} finally {
  await rm(traceDir, { recursive: true, force: true });
}
figures.sort((a, b) => a.title.localeCompare(b.title, 'en', { numeric: true }));
const report = `# Performance

Measured by \`npm run bench\` (bench/run.ts) on ${new Date().toISOString().slice(0, 10)} in ${((Date.now() - began) / 1000).toFixed(0)} s:
${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${mib(totalmem())} RAM, Node ${process.version}, Temporal CLI dev server
(scripts/infra). Every figure is measured beside its reference in the same run; each server, the load generator
(bench/processes/load.ts, undici Pool; autocannon for figure 1b) and each reference run in their own processes. Each measurement lasts
${SECONDS} s after a ${WARM_UP_SECONDS} s warm-up that is discarded. Throughput and latency count successful requests only;
errors are every answer ≥ 400 and every failed request. On a shared 2-core machine the absolute numbers vary between
runs; the ratios, measured side by side, are the numbers to watch.

Reproduce: \`npm run bench\` (all figures, about ${Math.ceil((Date.now() - began) / 60_000)} min), \`BENCH_ONLY=1,6 npm run bench\` (some),
\`BENCH_SECONDS=10 npm run bench\` (longer runs).

${figures.map(renderFigure).join('\n')}
${await readNotes()}`;
const reportPath = join(ROOT, 'docs', 'performance.md');
if (ALL_FIGURES.every((figure) => ONLY.has(figure))) {
  await writeFile(reportPath, report);
} else if (figures.length > 0) {
  // Some figures: theirs replace their sections of the last report (bench/reportSections.ts), the others are kept.
  const measured = figures.map((figure) => ({ id: figureId(figure.title), text: renderFigure(figure) }));
  const note = `_Measured on ${new Date().toISOString().slice(0, 10)} by \`BENCH_ONLY=${[...ONLY].join(',')} npm run bench\` (${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}), apart from the full run named above._`;
  await writeFile(reportPath, replaceFigures(await readFile(reportPath, 'utf8'), measured, note));
}
process.stdout.write(report);

function renderFigure(figure: Figure): string {
  return `## ${figure.title}\n\n${markdownTable(figure.table)}\n\n${figure.verdict}\n`;
}

/** The hand-written part of docs/performance.md (profiles, what was changed), kept across runs. */
async function readNotes(): Promise<string> {
  const notes = await readFile(join(ROOT, 'bench', 'notes.md'), 'utf8').catch(() => '');
  return notes;
}
