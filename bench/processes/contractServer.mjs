// The least a server does per status request under flowgate's contract, for figure 1b's limit (docs/performance.md):
// node:http answering the status JSON built per request (two ISO dates), with a fresh request id and the contract's
// headers, after one promise hop. CONTRACT_LOG=1: an access-log line through pino with the fields of
// docs/operations.md, the lines of a turn written together; CONTRACT_METRICS=1: the request histogram through
// prom-client. Not part of `npm run bench`; measure it with bench/processes/autocannonLoad.mjs.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { pino } from 'pino';
import { Histogram, Registry } from 'prom-client';

const log = process.env.CONTRACT_LOG === '1';
const metrics = process.env.CONTRACT_METRICS === '1';
const run = {
  workflowId: 'bench-status',
  runId: '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001',
  workflowName: 'bench_noop',
  catalog: 'main',
  status: 'completed',
  startedAt: new Date(1e12),
  closedAt: new Date(1e12 + 10),
};
const writer = pino.destination({ dest: 1, sync: false });
let lines = [];
const turnBatch = {
  write(line) {
    if (lines.push(line) === 1) setImmediate(() => writer.write(lines.splice(0).join('')));
  },
};
const logger = pino({ base: null, messageKey: 'msg', timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, turnBatch);
const histogram = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP requests answered.',
  labelNames: ['route', 'method', 'status'],
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600],
  registers: [new Registry()],
});

function answer(req, res, startedAt, requestId) {
  const body = JSON.stringify({ ...run, startedAt: run.startedAt.toISOString(), closedAt: run.closedAt.toISOString() });
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'x-request-id': requestId,
    'x-content-type-options': 'nosniff',
    'cache-control': 'no-store',
  });
  res.end(body);
  const milliseconds = performance.now() - startedAt;
  if (metrics) histogram.observe({ route: '/workflow/{id}/status', method: req.method, status: '200' }, milliseconds / 1000);
  if (log) logger.info({ method: req.method, path: req.url, status: 200, durationMs: Math.round(milliseconds * 10) / 10, requestId, workflowId: run.workflowId }, 'http request');
}

const server = createServer((req, res) => {
  const startedAt = performance.now();
  const requestId = randomUUID();
  Promise.resolve().then(() => answer(req, res, startedAt, requestId));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
