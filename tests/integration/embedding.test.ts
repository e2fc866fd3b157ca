// docs/embedding.md's three recipes, run as written: createFlowgate mounted under /flows in Express 5, Fastify and
// Hono, beside each app's own route, over a real socket.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import Fastify from 'fastify';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { request } from 'undici';
import { createFlowgate, type Flowgate } from '../../composition/embed/index.js';
import * as basic from '../fixtures/workflows/basic.js';
import { CapturingLogger } from '../support/logLines.js';


interface Mounted {
  url: string;
  close(): Promise<void>;
}

interface Context {
  flowgate?: Flowgate;
  logger?: CapturingLogger;
  traceDir?: string;
  app?: Mounted;
}

/** Each framework's recipe: the app's own route at /own, flowgate under /flows. */
const RECIPES: Record<string, (flowgate: Flowgate) => Promise<Mounted>> = {
  'Express 5': async (flowgate) => {
    const app = express();
    app.get('/own', (_req, res) => {
      res.json({ servedBy: 'express' });
    });
    // Before any body parser: flowgate reads the request body itself.
    app.use('/flows', flowgate.nodeHandler);
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  },
  Fastify: async (flowgate) => {
    const app = Fastify();
    app.get('/own', async () => ({ servedBy: 'fastify' }));
    await app.register(async (scope) => {
      // flowgate reads the request body itself: this scope leaves it unparsed.
      scope.removeAllContentTypeParsers();
      scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
      scope.all('/flows/*', (request, reply) => {
        reply.hijack();
        flowgate.nodeHandler(request.raw, reply.raw);
      });
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  },
  Hono: async (flowgate) => {
    const app = new Hono();
    app.get('/own', (c) => c.json({ servedBy: 'hono' }));
    app.mount('/flows', flowgate.fetchHandler);
    const server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started as Server));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  },
};

for (const [framework, mount] of Object.entries(RECIPES)) {
  const mounted = suite<Context>(`createFlowgate mounted in ${framework} under /flows`);

  mounted.before(async (context) => {
    context.traceDir = await mkdtemp(join(tmpdir(), 'fg-embed-'));
    context.logger = new CapturingLogger();
    context.flowgate = await createFlowgate({ workflows: Object.values(basic), basePath: '/flows', logger: context.logger, env: { TRACE_DIR: context.traceDir, DATA_DIR: join(context.traceDir, 'data') } });
    context.app = await mount(context.flowgate);
  });

  mounted.after(async (context) => {
    await context.app?.close();
    await context.flowgate?.close();
    if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
  });

  mounted('runs a workflow under the prefix; the app keeps its own route; the OpenAPI document names the prefix', async ({ app, flowgate }) => {
    const response = await request(`${app!.url}/flows/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'arithmetic', input: { n: 4 } }),
    });
    const body = (await response.body.json()) as { status: string; output: unknown };
    assert.is(response.statusCode, 200);
    assert.is(body.status, 'completed');
    assert.equal(body.output, { result: 10 });
    const own = await request(`${app!.url}/own`);
    assert.is(own.statusCode, 200);
    assert.equal(await own.body.json(), { servedBy: framework === 'Express 5' ? 'express' : framework.toLowerCase() });
    const served = await request(`${app!.url}/flows/openapi.json`);
    assert.equal(((await served.body.json()) as { servers: unknown }).servers, [{ url: '/flows' }]);
    assert.equal(flowgate!.openApiDocument.servers, [{ url: '/flows' }], 'the document the property hands out is the one served');
    const missing = await request(`${app!.url}/flows/workflow/nope-${Date.now()}/status`);
    assert.is(missing.statusCode, 404);
    assert.is(((await missing.body.json()) as { error: string }).error, 'WorkflowNotFoundError');
  });

  mounted('a 408 names its run under the prefix: Location followed with ?wait= gives the result; message and access log carry it', async ({ app, logger }) => {
    const timedOut = await request(`${app!.url}/flows/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'sleeper', input: { ms: 1_000 }, timeout: 0.2 }),
    });
    const body = (await timedOut.body.json()) as { workflowId: string; runId: string; message: string };
    assert.is(timedOut.statusCode, 408);
    const location = String(timedOut.headers['location']);
    assert.is(location, `/flows/workflow/${encodeURIComponent(body.workflowId)}/runs/${encodeURIComponent(body.runId)}/result`);
    assert.match(body.message, `readable at /flows/workflow/${encodeURIComponent(body.workflowId)}/result`);
    const followed = await request(`${app!.url}${location}?wait=10`);
    assert.is(followed.statusCode, 200);
    assert.equal(((await followed.body.json()) as { output: unknown }).output, { slept: 1_000 });
    const access = logger!.lines.filter((line) => line.msg === 'http request').map((line) => `${String(line.method)} ${String(line.path)} ${String(line.status)}`);
    assert.ok(access.includes('POST /flows/workflow/run 408'), access.join('\n'));
    assert.ok(access.includes(`GET ${location} 200`), access.join('\n'));
  });

  mounted('history streams as server-sent events through the framework', async ({ app }) => {
    const started = await request(`${app!.url}/flows/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'echo', input: { message: 'sse' } }),
    });
    const { workflowId } = (await started.body.json()) as { workflowId: string };
    const stream = await request(`${app!.url}/flows/workflow/${encodeURIComponent(workflowId)}/history`, { headers: { accept: 'text/event-stream' } });
    assert.is(stream.statusCode, 200);
    const text = await stream.body.text();
    assert.match(text, /^event: workflow\n/);
    assert.match(text, /event: done\ndata: {"status":"completed"}/);
  });

  mounted.run();
}

/** A body parser ahead of flowgate: the request's bytes are gone before its handler runs. */
const parsedAhead = suite<Context>('a body parser mounted ahead of flowgate');

parsedAhead.before(async (context) => {
  context.traceDir = await mkdtemp(join(tmpdir(), 'fg-embed-parsed-'));
  context.flowgate = await createFlowgate({ workflows: Object.values(basic), basePath: '/flows', logger: new CapturingLogger(), env: { TRACE_DIR: context.traceDir, DATA_DIR: join(context.traceDir, 'data') } });
});

parsedAhead.after(async (context) => {
  await context.flowgate?.close();
  if (context.traceDir) await rm(context.traceDir, { recursive: true, force: true });
});

const WRONG_ORDER: Record<string, (flowgate: Flowgate) => Promise<Mounted>> = {
  'Express: express.json() before the handler': async (flowgate) => {
    const app = express();
    app.use(express.json());
    app.use('/flows', flowgate.nodeHandler);
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  },
  'Hono: a middleware that reads the JSON before the handler': async (flowgate) => {
    const app = new Hono();
    app.use('/flows/*', async (c, next) => {
      if (c.req.method === 'POST') await c.req.json();
      await next();
    });
    app.all('/flows/*', (c) => flowgate.fetchHandler(c.req.raw));
    const server = await new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started as Server));
    });
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
  },
};

for (const [setup, mount] of Object.entries(WRONG_ORDER)) {
  parsedAhead(`${setup}: a request with a body is 500 BodyAlreadyReadError saying what to change; nothing starts; reads still answer`, async ({ flowgate }) => {
    const app = await mount(flowgate!);
    try {
      const workflowId = `parsed-ahead-${Date.now()}`;
      const refused = await request(`${app.url}/flows/workflow/run`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workflowName: 'arithmetic', workflowId, input: { n: 4 } }),
      });
      const body = (await refused.body.json()) as { error: string; message: string };
      assert.is(refused.statusCode, 500);
      assert.is(body.error, 'BodyAlreadyReadError');
      assert.match(body.message, "mount flowgate's handler before any body parser");
      const status = await request(`${app.url}/flows/workflow/${workflowId}/status`);
      assert.is(status.statusCode, 404, 'nothing was started');
      await status.body.dump();
    } finally {
      await app.close();
    }
  });
}

parsedAhead.run();

/** The documented shutdown, with a history stream open: the server and flowgate both close, the stream ends. */
const shutdown = suite('the documented shutdown with a history stream open');

const SHUTDOWN_RECIPES: Record<string, (flowgate: Flowgate) => Promise<Server>> = {
  'node:http (the node handler)': async (flowgate) => {
    const { createServer } = await import('node:http');
    const server = createServer(flowgate.nodeHandler);
    flowgate.nodeHandler.attachTo(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return server;
  },
  'Hono (the fetch handler)': async (flowgate) => {
    const app = new Hono();
    app.mount('/flows', flowgate.fetchHandler);
    return new Promise<Server>((resolve) => {
      const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started as Server));
    });
  },
};

for (const [recipe, listen] of Object.entries(SHUTDOWN_RECIPES)) {
  shutdown(`${recipe}: server.close() and flowgate.close() together end the stream and both finish`, async () => {
    const traceDir = await mkdtemp(join(tmpdir(), 'fg-embed-shutdown-'));
    const flowgate = await createFlowgate({ workflows: Object.values(basic), basePath: '/flows', logger: new CapturingLogger(), env: { TRACE_DIR: traceDir, DATA_DIR: join(traceDir, 'data') } });
    const server = await listen(flowgate);
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const started = await request(`${url}/flows/workflow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ workflowName: 'awaits_feedback', input: {} }) });
      const { workflowId } = (await started.body.json()) as { workflowId: string };
      const stream = await request(`${url}/flows/workflow/${workflowId}/history`, { headers: { accept: 'text/event-stream' } });
      assert.is(stream.statusCode, 200);
      const streamEnded = stream.body.text().catch(() => 'cut');
      const serverClosed = new Promise<void>((resolve) => server.close(() => resolve()));
      await flowgate.close();
      const outcome = await Promise.race([Promise.all([serverClosed, streamEnded]).then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 5_000, 'still open after 5 s'))]);
      assert.is(outcome, 'closed');
    } finally {
      server.closeAllConnections();
      await flowgate.close();
      await rm(traceDir, { recursive: true, force: true });
    }
  });
}

shutdown.run();
