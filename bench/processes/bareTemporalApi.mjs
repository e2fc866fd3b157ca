// Figure 9's floor: the least any HTTP API in front of Temporal pays per request on this machine. A bare node:http
// server, connected once with the raw @temporalio/client, that does what each measured request asks and nothing
// more (no validation, catalog, idempotency, log, metrics or trace): the token compared, the body parsed, one raw
// call, a small JSON answer. What flowgate spends above it is flowgate's; what it spends above the raw client is the
// HTTP exchange's. Usage: bareTemporalApi.mjs '{"address":...,"token":...}'; prints `serving on <url>` on stderr.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { Client, Connection } from '@temporalio/client';

const { address, token, taskQueue = 'main' } = JSON.parse(process.argv[2] ?? '{}');
const connection = await Connection.connect({ address });
const client = new Client({ connection, namespace: 'default' });
const expectedAuthorization = `Bearer ${token}`;

function answer(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function readJson(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

async function handle(req, res) {
  if (req.headers.authorization !== expectedAuthorization) return answer(res, 401, { error: 'Unauthorized' });
  const status = /^\/workflow\/([^/]+)\/status$/.exec(req.url ?? '');
  if (req.method === 'GET' && status) {
    const description = await client.workflow.getHandle(decodeURIComponent(status[1])).describe();
    return answer(res, 200, { workflowId: description.workflowId, runId: description.runId, status: description.status.name.toLowerCase() });
  }
  if (req.method === 'POST' && (req.url === '/workflow' || req.url === '/workflow/run')) {
    const { workflowName, input } = await readJson(req);
    const options = { taskQueue, workflowId: randomUUID(), args: [input] };
    if (req.url === '/workflow') {
      const handle = await client.workflow.start(workflowName, options);
      return answer(res, 202, { workflowId: handle.workflowId, runId: handle.firstExecutionRunId });
    }
    const output = await client.workflow.execute(workflowName, options);
    return answer(res, 200, { workflowId: options.workflowId, status: 'completed', output });
  }
  return answer(res, 404, { error: 'NotFound' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error) => answer(res, 500, { error: String(error) }));
});
server.listen(0, '127.0.0.1', () => process.stderr.write(`serving on http://127.0.0.1:${server.address().port}\n`));
process.once('SIGTERM', () => server.close(() => connection.close().then(() => process.exit(0))));
