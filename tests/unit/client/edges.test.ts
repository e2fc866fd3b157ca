import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFlowgateClient, FlowgateApiError } from '../../../adapters/client/index.js';

/*
 * What the contract suites cannot make a real flowgate server do on demand: a stream failing after it started (its
 * `error` event), an event kind of a newer server, and a proxy's non-JSON error page. A loopback node:http server
 * answers those; everything else about the client is tested against real servers in tests/contract/client*.test.ts.
 */
async function withServer(handler: (req: IncomingMessage, res: ServerResponse) => void, body: (url: string) => Promise<void>): Promise<void> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}

const STATUS_VIEW = { workflowId: 'w', runId: 'r', workflowName: 'n', catalog: 'main', status: 'running', startedAt: '2026-01-01T00:00:00Z', closedAt: null };

test('follow(): an error event after the stream started is a FlowgateApiError; an unknown event kind is passed over', async () => {
  await withServer(
    (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req-7' });
      res.write(`event: workflow\ndata: ${JSON.stringify(STATUS_VIEW)}\n\n`);
      res.write('event: from_the_future\ndata: {}\n\n');
      res.write(`event: history\nid: 1\ndata: ${JSON.stringify({ eventId: 1, type: 'workflow_started', time: '2026-01-01T00:00:00Z', attributes: {} })}\n\n`);
      res.end(`event: error\ndata: ${JSON.stringify({ error: 'EngineError', message: 'lost the engine' })}\n\n`);
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url });
      const kinds: string[] = [];
      let failure: unknown;
      try {
        for await (const event of client.follow('w')) kinds.push(event.event);
      } catch (error) {
        failure = error;
      } finally {
        await client.close();
      }
      assert.equal(kinds, ['workflow', 'history']);
      assert.instance(failure, FlowgateApiError);
      assert.is((failure as FlowgateApiError).error, 'EngineError');
      assert.is((failure as FlowgateApiError).status, 200);
      assert.is((failure as FlowgateApiError).requestId, 'req-7');
    },
  );
});

test('an error page that is not the API\'s JSON is named by its status', async () => {
  await withServer(
    (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' });
      res.end('<h1>Bad gateway</h1>');
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url });
      try {
        const error = await client.health().then(() => undefined, (caught: unknown) => caught);
        assert.instance(error, FlowgateApiError);
        assert.is((error as FlowgateApiError).error, 'HTTP502');
        assert.is((error as FlowgateApiError).status, 502);
        assert.is((error as FlowgateApiError).body, '<h1>Bad gateway</h1>');
      } finally {
        await client.close();
      }
    },
  );
});

test('baseUrl: the mount prefix is kept, a trailing slash or query dropped; only http and https', async () => {
  const paths: string[] = [];
  await withServer(
    (req, res) => {
      paths.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"status":"ok"}');
    },
    async (url) => {
      for (const base of [`${url}/flows`, `${url}/flows/`, `${url}/flows?x=1`]) {
        const client = createFlowgateClient({ baseUrl: base });
        await client.health();
        await client.status('a/b', { runId: 'r 1' });
        await client.close();
      }
    },
  );
  assert.equal(paths, Array(3).fill(['/flows/health', '/flows/workflow/a%2Fb/runs/r%201/status']).flat());
  assert.throws(() => createFlowgateClient({ baseUrl: 'ftp://example.com' }), /http or https/);
});

test.run();
