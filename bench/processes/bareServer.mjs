// The reference of figure 1: a bare node:http server answering the same JSON a status request returns.
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
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}` })}\n`));
process.once('SIGTERM', () => server.close(() => process.exit(0)));
