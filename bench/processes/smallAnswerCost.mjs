// Figure 12's in-process reference: the HTTP app's own CPU per `GET /workflow/{id}/status` (no socket, no load
// generator beside it), with compression on and off and with and without Accept-Encoding, from the compiled dist/.
// On a loaded machine the socket loads drift by more than what is measured here; this is the app's share alone.
// Usage: smallAnswerCost.mjs '{"requests":100000,"rounds":5}' → one JSON line: µs per request, median of the rounds.
import { createHttpApp } from '../../dist/adapters/http/app.js';
import { randomIds } from '../../dist/adapters/system/index.js';
import { parseConfig } from '../../dist/composition/config.js';
import { startFlowgateServer } from '../../dist/composition/server.js';

const spec = JSON.parse(process.argv[2] ?? '{}');
const requests = spec.requests ?? 100_000;
const rounds = spec.rounds ?? 5;
const server = await startFlowgateServer({ env: { ...process.env, PORT: '0', LOG_LEVEL: 'error', ENGINE: 'memory', WORKFLOWS_DIR: 'dist/bench/workflows' } });
const { answer } = await server.api.runAndWait({ workflowName: 'bench_noop', input: {}, workflowId: 'bench-status', timeoutSeconds: 30 }, '2');
if (answer.status !== 'completed') throw new Error(`setup run ended ${answer.status}`);
const silent = { info() {}, warn() {}, error() {} };
const appWith = (compression) =>
  createHttpApp({ ...parseConfig({}).http, api: server.api, logger: silent, ids: randomIds, compression });
const apps = { on: appWith(true), off: appWith(false) };
const ACCEPTING = { host: 'bench', accept: '*/*', 'accept-encoding': 'gzip, deflate, br' };
const PLAIN = { host: 'bench', accept: '*/*' };
const signal = new AbortController().signal;

async function microsPerRequest(app, headers, count) {
  const before = process.cpuUsage();
  for (let index = 0; index < count; index++) {
    const response = await app.handle({ method: 'GET', url: '/workflow/bench-status/status', headers, body: null, signal });
    if (response.status !== 200 || typeof response.body !== 'string') throw new Error(`status answered ${response.status}`);
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / count;
}

const cases = { 'on, plain': [apps.on, PLAIN], 'on, accepting': [apps.on, ACCEPTING], 'off, plain': [apps.off, PLAIN], 'off, accepting': [apps.off, ACCEPTING] };
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (const [app, headers] of Object.values(cases)) await microsPerRequest(app, headers, requests / 5); // warm-up
for (let round = 0; round < rounds; round++) {
  for (const [name, [app, headers]] of Object.entries(cases)) samples[name].push(await microsPerRequest(app, headers, requests));
}
await server.close();
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
process.stdout.write(`${JSON.stringify(Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])))}\n`);
