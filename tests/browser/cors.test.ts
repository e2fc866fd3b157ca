import { createServer, type Server } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, ensureChromium } from '../../scripts/infra/index.mjs';
import { listenOn } from '../../adapters/http/listen.js';
import { startTestApi, type TestApi } from '../support/engines.js';
import { uniqueId } from '../support/http.js';

/*
 * CORS_ORIGINS in Chromium: a page served from another loopback port (another origin) calls the API with fetch. From
 * the listed origin, simple and preflighted requests (a bearer token, a JSON body, an Idempotency-Key, Last-Event-ID)
 * are answered and their exposed headers are readable; from an origin not listed, the browser keeps every answer
 * from the page. What the server sends: tests/unit/http/cors.test.ts and tests/contract/cors.test.ts.
 */

const TOKEN = 'cors-browser-t0ken_5d1e';

interface CorsContext {
  api: TestApi;
  browser: Browser;
  /** The page servers: the origin CORS_ORIGINS lists, and one it does not. */
  listed: PageServer;
  unlisted: PageServer;
  startError?: unknown;
}

interface PageServer {
  origin: string;
  close(): Promise<void>;
}

/** A server of one empty page, on a loopback port of its own: a page of that origin. */
async function startPageServer(): Promise<PageServer> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>another origin</title><p>a page</p>');
  });
  const origin = await listenOn(server, 0, '127.0.0.1');
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const test = suite<CorsContext>('CORS from a page on another origin (Chromium)', {} as CorsContext);

test.before(async (context) => {
  try {
    const executablePath = ensureChromium();
    context.listed = await startPageServer();
    context.unlisted = await startPageServer();
    context.api = await startTestApi({ API_AUTH_TOKEN: TOKEN, CORS_ORIGINS: context.listed.origin });
    context.browser = await chromium.launch({ executablePath: await executablePath, args: [...CHROMIUM_ARGS] });
  } catch (error) {
    context.startError = error;
  }
});
test.before.each((context) => {
  if (context.startError !== undefined) {
    throw new Error(`the CORS suite could not start: ${context.startError instanceof Error ? context.startError.message : String(context.startError)}`);
  }
});
test.after(async (context) => {
  await context.browser?.close();
  await context.api?.close();
  await context.listed?.close();
  await context.unlisted?.close();
});

/** What a page's fetch saw: the status, the headers it may read and the body; or the TypeError of a blocked call. */
type Seen = { status: number; headers: Record<string, string>; body: string } | { blocked: string };

/** Runs `fetch(url, init)` in the page, as a script of its origin would. */
async function fetchFrom(page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Seen> {
  return page.evaluate(
    async ({ url, init }) => {
      try {
        const response = await fetch(url, init);
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => (headers[name] = value));
        return { status: response.status, headers, body: await response.text() };
      } catch (error) {
        return { blocked: String(error) };
      }
    },
    { url, init },
  );
}

async function pageAt(context: CorsContext, origin: string): Promise<{ page: Page; close(): Promise<void> }> {
  const browserContext = await context.browser.newContext();
  const page = await browserContext.newPage();
  await page.goto(`${origin}/`);
  return { page, close: () => browserContext.close() };
}

function answered(seen: Seen, what: string): { status: number; headers: Record<string, string>; body: string } {
  if ('blocked' in seen) throw new Error(`${what}: the browser blocked it (${seen.blocked})`);
  return seen;
}

test('from the listed origin: a preflighted POST with a bearer token, a JSON body and an Idempotency-Key is answered and readable', async (context) => {
  const { page, close } = await pageAt(context, context.listed.origin);
  try {
    const preflightsBefore = preflights(context.api);
    const workflowId = uniqueId('cors-browser');
    const run = answered(
      await fetchFrom(page, `${context.api.baseUrl}/workflow/run`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', 'idempotency-key': uniqueId('cors-key') },
        body: JSON.stringify({ workflowName: 'echo', workflowId, input: { message: 'from another origin' } }),
      }),
      'POST /workflow/run',
    );
    assert.is(run.status, 200, run.body);
    assert.is(JSON.parse(run.body).output.message, 'from another origin');
    assert.ok(run.headers['x-request-id'], 'X-Request-Id is readable (exposed)');
    assert.ok(run.headers['idempotency-expires'], 'Idempotency-Expires is readable (exposed)');
    assert.ok(preflights(context.api) > preflightsBefore, 'Chromium sent a preflight first, and it was answered 204');

    // The deprecated stop: its Deprecation, Sunset and Link are readable.
    const started = answered(
      await fetchFrom(page, `${context.api.baseUrl}/workflow`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ workflowName: 'awaits_feedback', input: {} }),
      }),
      'POST /workflow',
    );
    const { workflowId: waiting } = JSON.parse(started.body) as { workflowId: string };
    const stopped = answered(
      await fetchFrom(page, `${context.api.baseUrl}/workflow/${encodeURIComponent(waiting)}/stop`, { method: 'PATCH', headers: { authorization: `Bearer ${TOKEN}` } }),
      'PATCH /workflow/{id}/stop',
    );
    assert.is(stopped.status, 200, stopped.body);
    assert.match(stopped.headers['deprecation'] ?? '', /^@\d+$/);
    assert.ok(stopped.headers['sunset']);
    assert.match(stopped.headers['link'] ?? '', /rel="successor-version"/);

    // An error answer is readable too, and so is the history stream resumed with Last-Event-ID.
    const missing = answered(await fetchFrom(page, `${context.api.baseUrl}/workflow/nope-${workflowId}/status`, { headers: { authorization: `Bearer ${TOKEN}` } }), 'a 404');
    assert.is(missing.status, 404);
    assert.is(JSON.parse(missing.body).error, 'WorkflowNotFoundError');
    const stream = answered(
      await fetchFrom(page, `${context.api.baseUrl}/workflow/${workflowId}/history`, {
        headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', 'last-event-id': '1' },
      }),
      'the history stream',
    );
    assert.is(stream.status, 200);
    assert.match(stream.body, /event: done/);
    assert.not.match(stream.body, /\nid: 1\n/, 'resumed after event 1');
  } finally {
    await close();
  }
});

test('from an origin not listed: the browser keeps every answer from the page, simple or preflighted', async (context) => {
  const { page, close } = await pageAt(context, context.unlisted.origin);
  try {
    const simple = await fetchFrom(page, `${context.api.baseUrl}/health`);
    assert.ok('blocked' in simple, `a simple GET is blocked: ${JSON.stringify(simple)}`);
    const workflowId = uniqueId('cors-refused');
    const preflighted = await fetchFrom(page, `${context.api.baseUrl}/workflow`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'echo', workflowId, input: { message: 'never' } }),
    });
    assert.ok('blocked' in preflighted, `a preflighted POST is blocked: ${JSON.stringify(preflighted)}`);
    // The preflight failed, so the POST itself was never sent: nothing started.
    const status = await fetch(`${context.api.baseUrl}/workflow/${workflowId}/status`, { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.is(status.status, 404);
  } finally {
    await close();
  }
});

/** Preflights the API answered 204, from its access log. */
function preflights(api: TestApi): number {
  return api.logs.filter((line) => line.msg === 'http request' && line.method === 'OPTIONS' && line.status === 204).length;
}

test.run();
