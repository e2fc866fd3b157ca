// The reference of figure 1: a bare node:http server answering the same JSON a status request returns.
// BARE_CONTRACT_HEADERS=1: with the headers the contract puts on every flowgate response too (a fresh request id,
// nosniff, no-store), the floor any implementation of the contract starts from.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';

const body = JSON.stringify({
  workflowId: 'bench-status',
  runId: '6b0f6f43-4b1f-4d55-9a35-4c7bd7c8c001',
  workflowName: 'bench_noop',
  catalog: 'main',
  status: 'completed',
  startedAt: '2026-01-01T00:00:00.000Z',
  closedAt: '2026-01-01T00:00:00.010Z',
});
const contractHeaders = process.env.BARE_CONTRACT_HEADERS === '1';
const server = createServer((_req, res) => {
  const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) };
  if (contractHeaders) Object.assign(headers, { 'x-request-id': randomUUID(), 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' });
  res.writeHead(200, headers);
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
