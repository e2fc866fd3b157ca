import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFlowgateClient, FlowgateApiError, FlowgateTimeoutError } from '../../../adapters/client/index.js';
import { signalHolds } from '../../support/signalHolds.js';

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
        assert.is((error as FlowgateApiError).fromApi, false);
        assert.is(
          (error as FlowgateApiError).message,
          `HTTP502: the answer to GET ${url}/health is not the API's JSON (HTTP 502, content-type text/html)`,
          'one line naming the status and the request, never the page',
        );
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

test('options given as undefined are the defaults: no token sent, the latest run read, retries and timeout as by default', async () => {
  const seen: { url: string | undefined; authorization: string | undefined; requestId: string | undefined }[] = [];
  await withServer(
    (req, res) => {
      seen.push({ url: req.url, authorization: req.headers.authorization, requestId: req.headers['x-request-id'] as string | undefined });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(STATUS_VIEW));
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url, token: undefined, retry: { maxRetries: undefined, maxWaitMs: undefined }, requestTimeoutMs: undefined, headers: undefined, dispatcher: undefined });
      try {
        assert.equal(await client.status('w', { runId: undefined, signal: undefined, requestId: undefined }), STATUS_VIEW);
        await client.listRuns({ workflowName: undefined, limit: undefined });
      } finally {
        await client.close();
      }
    },
  );
  assert.equal(seen, [
    { url: '/workflow/w/status', authorization: undefined, requestId: undefined },
    { url: '/workflow/runs', authorization: undefined, requestId: undefined },
  ]);
});

test('a 2xx answer that is not JSON is a FlowgateApiError naming it, to a call and to a stream, never a SyntaxError', async () => {
  await withServer(
    (req, res) => {
      if (req.url === '/workflow/w/history') {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>a login page</html>');
        return;
      }
      res.writeHead(200, { 'content-type': req.url === '/health' ? 'application/json' : 'text/plain', 'x-request-id': 'req-9' });
      res.end(req.url === '/health' ? '{oops' : 'hello');
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url });
      try {
        const [badJson, plain, stream] = await Promise.all([
          client.health().then(() => undefined, (caught: unknown) => caught),
          client.status('w').then(() => undefined, (caught: unknown) => caught),
          (async () => {
            for await (const _event of client.follow('w')) return 'an event';
            return 'the end';
          })().then((value) => value, (caught: unknown) => caught),
        ]);
        for (const [error, method, path, type] of [
          [badJson, 'GET', '/health', 'application/json'],
          [plain, 'GET', '/workflow/w/status', 'text/plain'],
          [stream, 'GET', '/workflow/w/history', 'text/html'],
        ] as const) {
          assert.instance(error, FlowgateApiError);
          const failure = error as FlowgateApiError;
          assert.equal([failure.error, failure.status, failure.fromApi, failure.method, failure.url], ['HTTP200', 200, false, method, `${url}${path}`]);
          assert.is(failure.message, `HTTP200: the answer to ${method} ${url}${path} is not the API's JSON (HTTP 200, content-type ${type})`);
        }
        assert.is((plain as FlowgateApiError).requestId, 'req-9');
        assert.is((plain as FlowgateApiError).body, 'hello');
      } finally {
        await client.close();
      }
    },
  );
});

test('requestTimeoutMs: a server that never answers is a FlowgateTimeoutError after it, not retried, even for a read', async () => {
  let requests = 0;
  await withServer(
    () => {
      requests += 1;
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url, requestTimeoutMs: 300 });
      try {
        const startedAt = Date.now();
        const [status, stream] = await Promise.all([
          client.status('w').then(() => undefined, (caught: unknown) => caught),
          (async () => {
            for await (const _event of client.follow('w')) return 'an event';
            return 'the end';
          })().then((value) => value, (caught: unknown) => caught),
        ]);
        const elapsed = Date.now() - startedAt;
        assert.instance(status, FlowgateTimeoutError);
        assert.equal([(status as FlowgateTimeoutError).method, (status as FlowgateTimeoutError).url, (status as FlowgateTimeoutError).timeoutMs], ['GET', `${url}/workflow/w/status`, 300]);
        assert.is((status as FlowgateTimeoutError).message, `no answer to GET ${url}/workflow/w/status within 0.3 s`);
        assert.instance(stream, FlowgateTimeoutError, 'a stream without its first byte');
        assert.ok(elapsed >= 290 && elapsed < 3_000, `${elapsed} ms`);
        assert.is(requests, 2, 'one request each: a timeout is not retried');
      } finally {
        await client.close();
      }
    },
  );
});

test('requestTimeoutMs counts after the wait a long-poll asks for, and only to a stream\'s first byte; a caller\'s abort still ends the stream', async () => {
  await withServer(
    (req, res) => {
      if (req.headers.accept === 'text/event-stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: workflow\ndata: ${JSON.stringify(STATUS_VIEW)}\n\n`);
        if (req.url !== '/workflow/w/history') return; // quiet for ever: only the caller's abort ends it
        setTimeout(() => res.end('event: done\ndata: {"status":"completed"}\n\n'), 700);
        return;
      }
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ v: '2', workflowId: 'w', runId: 'r', status: 'completed', input: {}, output: 1, error: null, trace: null }));
      }, 700);
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url, requestTimeoutMs: 300 });
      try {
        const result = await client.result('w', { wait: 1 });
        assert.is(result.output, 1, 'answered 0.7 s into a 1 s wait, past the 0.3 s timeout');
        const late = await client.result('w').then(() => undefined, (caught: unknown) => caught);
        assert.instance(late, FlowgateTimeoutError, 'the same answer without a wait is too late');
        const kinds: string[] = [];
        for await (const event of client.follow('w')) kinds.push(event.event);
        assert.equal(kinds, ['workflow', 'done'], 'a stream quiet for 0.7 s after its first byte is not cut');
        const abort = new AbortController();
        const aborted = (async () => {
          for await (const event of client.follow('w', { runId: 'r', signal: abort.signal })) if (event.event === 'workflow') setTimeout(() => abort.abort(new Error('enough')), 400);
        })().then(() => undefined, (caught: unknown) => caught);
        assert.is(((await aborted) as Error).message, 'enough');
      } finally {
        await client.close();
      }
    },
  );
  assert.throws(() => createFlowgateClient({ baseUrl: 'http://127.0.0.1:1', requestTimeoutMs: 0 }), /requestTimeoutMs must be a positive number/);
});

test('baseUrl with a user name or password is refused, without repeating the password', () => {
  let message = '';
  try {
    createFlowgateClient({ baseUrl: 'http://alice:s3cret@127.0.0.1:9/flows' });
  } catch (error) {
    assert.instance(error, TypeError);
    message = (error as Error).message;
  }
  assert.match(message, /must not carry a user name or password/);
  assert.not.match(message, /s3cret/);
});

test('headers: names are case-insensitive, so a caller\'s Accept-Encoding replaces the client\'s', async () => {
  const seen: (string | string[] | undefined)[] = [];
  await withServer(
    (req, res) => {
      seen.push(req.headers['accept-encoding'], req.headers['x-team']);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(STATUS_VIEW));
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url, headers: { 'Accept-Encoding': 'identity', 'X-Team': 'billing' } });
      try {
        await client.status('w');
      } finally {
        await client.close();
      }
    },
  );
  assert.equal(seen, ['identity', 'billing']);
});

test('run(): after the 408, the result is asked for under the client\'s own mount prefix, which a proxy may strip from the Location', async () => {
  const paths: string[] = [];
  const result = { ...STATUS_VIEW, status: 'completed', output: { ok: true } };
  await withServer(
    (req, res) => {
      paths.push(req.url ?? '');
      if (req.method === 'POST') {
        // What a server behind a proxy that strips `/flows` answers: its own paths, without the prefix.
        res.writeHead(408, { 'content-type': 'application/json', location: '/workflow/w/runs/r/result' });
        res.end(JSON.stringify({ error: 'WorkflowExecutionTimedOutError', message: 'still running', workflowId: 'w', runId: 'r' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(result));
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: `${url}/flows` });
      try {
        assert.equal((await client.run('n', {}, { timeoutMs: 5000, pollSeconds: 1 })).status, 'completed');
      } finally {
        await client.close();
      }
    },
  );
  assert.is(paths[0], '/flows/workflow/run');
  assert.match(paths[1]!, /^\/flows\/workflow\/w\/runs\/r\/result\?wait=/);
});

test("run(): a 408 that names no ids is followed by its Location's path as written (a %2E of an id `.` kept, a whole URL's path taken)", async () => {
  for (const [location, expected] of [
    ['/flows/workflow/%2E/runs/r1/result', '/flows/workflow/%2E/runs/r1/result'],
    ['http://other.invalid:81/flows/workflow/%2E%2E/runs/r1/result#top', '/flows/workflow/%2E%2E/runs/r1/result'],
  ] as const) {
    const paths: string[] = [];
    await withServer(
      (req, res) => {
        paths.push(req.url ?? '');
        if (req.method === 'POST') {
          res.writeHead(408, { 'content-type': 'application/json', location });
          res.end(JSON.stringify({ error: 'WorkflowExecutionTimedOutError', message: 'still running' }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ...STATUS_VIEW, workflowId: '.', status: 'completed', output: 1 }));
      },
      async (url) => {
        const client = createFlowgateClient({ baseUrl: `${url}/flows/` });
        try {
          assert.is((await client.run('n', {}, { timeoutMs: 5000, pollSeconds: 1 })).status, 'completed');
        } finally {
          await client.close();
        }
      },
    );
    assert.match(paths[1]!, new RegExp(`^${expected.replaceAll('.', '\\.')}\\?wait=`));
  }
});

test('a token a header cannot carry is a TypeError at creation that does not repeat it', () => {
  for (const token of ['s3cr3t\r', 'with space', 's3cr3t-t\u20ack']) {
    assert.throws(
      () => createFlowgateClient({ baseUrl: 'http://127.0.0.1:9', token }),
      (error: Error) => error instanceof TypeError && error.message === 'token must be printable ASCII without spaces or line breaks',
    );
  }
});

test('one application signal across many calls: a call that ended holds nothing of it (Node 22 kept what AbortSignal.any made)', async () => {
  await withServer(
    (req, res) => {
      if (req.url?.includes('/history')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: workflow\ndata: ${JSON.stringify(STATUS_VIEW)}\n\n`);
        return; // the stream stays open until the caller aborts
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(STATUS_VIEW));
    },
    async (url) => {
      const client = createFlowgateClient({ baseUrl: url });
      const { signal } = new AbortController();
      try {
        for (let call = 0; call < 200; call += 1) await client.status('w', { signal });
        assert.equal(signalHolds(signal), { listeners: 0, dependants: 0 }, 'answered calls hold nothing');

        // A stream holds the signal while it is open, and the signal still ends it; then it lets go.
        const streamSignal = new AbortController();
        const seen: string[] = [];
        const reading = (async () => {
          try {
            for await (const event of client.follow('w', { signal: streamSignal.signal })) {
              seen.push(event.event);
              assert.is(signalHolds(streamSignal.signal).listeners, 1, 'an open stream listens');
              streamSignal.abort(new Error('enough'));
            }
          } catch (error) {
            return error;
          }
        })();
        assert.is(((await reading) as Error).message, 'enough');
        assert.equal(seen, ['workflow']);
        await new Promise((resolve) => setTimeout(resolve, 10));
        assert.equal(signalHolds(streamSignal.signal), { listeners: 0, dependants: 0 }, 'a stream that ended holds nothing');
      } finally {
        await client.close();
      }
    },
  );
});

test.run();
