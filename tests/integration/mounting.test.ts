import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import { request } from 'undici';
import { buildContainer, resolveToken } from '../../composition/container.js';
import { parseConfig } from '../../composition/config.js';
import { FLOWGATE_API, MEMORY_ENGINE } from '../../composition/tokens.js';
import { ID_GENERATOR, LOGGER } from '../../ports/index.js';
import { createNodeHandler, createFetchHandler } from '../../adapters/http/index.js';
import { JsonLogger } from '../../adapters/log/index.js';
import * as basic from '../fixtures/workflows/basic.js';

/** The same handler options every mounting uses: the real core and memory engine from the container. */
async function handlerOptions(traceDir: string) {
  const container = buildContainer(parseConfig({ TRACE_DIR: traceDir }), { logger: new JsonLogger({ level: 'silent' }) });
  const engine = resolveToken(container, MEMORY_ENGINE);
  const worker = engine.registerWorker({ catalog: 'main', workflows: Object.values(basic) });
  return {
    options: { api: resolveToken(container, FLOWGATE_API), logger: resolveToken(container, LOGGER), ids: resolveToken(container, ID_GENERATOR) },
    close: () => {
      worker.stop();
      engine.close();
    },
  };
}

const mounted = suite<{ server?: Server; url?: string; traceDir?: string; close?: () => void }>('mounted in Express 5');

mounted.before(async (context) => {
  context.traceDir = await mkdtemp(join(tmpdir(), 'fg-express-'));
  const { options, close } = await handlerOptions(context.traceDir);
  context.close = close;
  const app = express();
  app.get('/express-own-route', (_req, res) => {
    res.json({ servedBy: 'express' });
  });
  app.use('/api', createNodeHandler(options));
  await new Promise<void>((resolve) => {
    context.server = app.listen(0, '127.0.0.1', () => resolve());
  });
  context.url = `http://127.0.0.1:${(context.server!.address() as AddressInfo).port}`;
});

mounted.after(async (context) => {
  await new Promise((resolve) => context.server?.close(resolve));
  context.close?.();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

mounted('runs a workflow through the handler mounted under /api', async ({ url }) => {
  const response = await request(`${url}/api/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'arithmetic', input: { n: 4 } }),
  });
  const body = (await response.body.json()) as { status: string; output: unknown; v: string };
  assert.is(response.statusCode, 200);
  assert.is(body.v, '2');
  assert.is(body.status, 'completed');
  assert.equal(body.output, { result: 10 });
  assert.ok(response.headers['x-request-id']);
});

mounted('errors keep the contract inside Express, and Express keeps its own routes', async ({ url }) => {
  const missing = await request(`${url}/api/workflow/nope-${Date.now()}/status`);
  assert.is(missing.statusCode, 404);
  assert.is(((await missing.body.json()) as { error: string }).error, 'WorkflowNotFoundError');
  const own = await request(`${url}/express-own-route`);
  assert.equal(await own.body.json(), { servedBy: 'express' });
});

mounted('Location and Link carry the mount prefix, so a client follows them as they are', async ({ url }) => {
  // A run-and-wait that runs out names its run's result in Location.
  const timedOut = await request(`${url}/api/workflow/run`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ workflowName: 'sleeper', input: { ms: 1_500 }, timeout: 0.2 }),
  });
  const { workflowId, runId } = (await timedOut.body.json()) as { workflowId: string; runId: string };
  assert.is(timedOut.statusCode, 408);
  const location = String(timedOut.headers['location']);
  assert.is(location, `/api/workflow/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/result`);
  const followed = await request(`${url}${location}?wait=10`);
  assert.is(followed.statusCode, 200);
  assert.equal(((await followed.body.json()) as { output: unknown }).output, { slept: 1_500 });

  // A deprecated endpoint's Link names its successor under the prefix too.
  const stopped = await request(`${url}/api/workflow/${encodeURIComponent(workflowId)}/stop`, { method: 'PATCH' });
  await stopped.body.dump();
  assert.is(stopped.statusCode, 409, 'the run has completed');
  assert.is(stopped.headers['link'], `</api/workflow/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}/stop>; rel="successor-version"`);
});

mounted.run();

const fetchHandler = suite<{ handle?: (request: Request) => Promise<Response>; traceDir?: string; close?: () => void }>('WHATWG fetch handler');

fetchHandler.before(async (context) => {
  context.traceDir = await mkdtemp(join(tmpdir(), 'fg-fetch-'));
  const { options, close } = await handlerOptions(context.traceDir);
  context.close = close;
  context.handle = createFetchHandler(options);
});

fetchHandler.after(async (context) => {
  context.close?.();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

fetchHandler('answers Request objects with Response objects, errors included', async ({ handle }) => {
  const ok = await handle!(
    new Request('http://flowgate.local/workflow/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'echo', input: { message: 'hi' } }),
    }),
  );
  assert.is(ok.status, 200);
  assert.equal(((await ok.json()) as { output: unknown }).output, { message: 'hi' });
  const bad = await handle!(new Request('http://flowgate.local/workflow/run', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }));
  assert.is(bad.status, 415);
  assert.is(((await bad.json()) as { error: string }).error, 'UnsupportedMediaTypeError');
});

fetchHandler('streams history as server-sent events', async ({ handle }) => {
  const started = await handle!(
    new Request('http://flowgate.local/workflow/run', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'echo', input: { message: 'sse' }, workflowId: `fetch-sse-${Date.now()}` }),
    }),
  );
  const { workflowId } = (await started.json()) as { workflowId: string };
  const stream = await handle!(new Request(`http://flowgate.local/workflow/${workflowId}/history`, { headers: { accept: 'text/event-stream' } }));
  assert.is(stream.status, 200);
  assert.match(stream.headers.get('content-type') ?? '', /text\/event-stream/);
  const text = await stream.text();
  assert.match(text, /^event: workflow\n/);
  assert.match(text, /event: done\ndata: {"status":"completed"}/);
});

fetchHandler.run();
