import * as assert from 'uvu/assert';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Request } from 'playwright-core';
import express from 'express';
import { startFlowgateServer } from '../../composition/server.js';
import { createFlowgate } from '../../composition/embed/index.js';
import { PinoLogger } from '../../adapters/log/index.js';
import * as basic from '../fixtures/workflows/basic.js';
import { engineUnderTest } from '../support/engines.js';
import { call, uniqueId } from '../support/http.js';
import { startServerProcess } from '../integration/process.js';
import { runPath, runToEnd } from './support/api.js';
import { openUi, screenshot, uiSuite } from './support/uiSuite.js';

/** The page itself: its files and headers, its CSP in a real browser, its weight, keyboard and zoom, UI=off. */
const test = uiSuite('UI: the page');

const FIRST_LOAD_LIMIT_BYTES = 200 * 1024;

test('files: the page at /ui and every deep link, hashed assets with their types, a strict CSP, caching', async (context) => {
  for (const base of [context.api.baseUrl, context.proxy.url]) {
    for (const path of ['/ui', '/ui/', '/ui/runs', '/ui/runs/order%2F42/0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f', '/ui/start?workflow=echo']) {
      const page = await call({ baseUrl: base }, 'GET', path);
      assert.is(page.status, 200, `${base}${path}`);
      assert.is(page.headers['content-type'], 'text/html; charset=utf-8');
      assert.is(page.headers['cache-control'], 'no-cache');
      assert.is(page.headers['x-content-type-options'], 'nosniff');
      const csp = page.headers['content-security-policy'] ?? '';
      assert.match(csp, /default-src 'self'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.not.match(csp, /unsafe|https?:|\*/, 'nothing inline, nothing from another origin');
    }
  }
  const html = (await call(context.api, 'GET', '/ui/')).text;
  assert.not.match(html, /<script>|<style|\sstyle=|\son\w+=/, 'no inline script, style or handler in the page');
  const assets = [...html.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((match) => match[1]!);
  assert.equal(assets.map((asset) => asset.replace(/-[A-Z0-9]{8}\./, '-HASH.')).sort(), ['assets/app-HASH.js', 'assets/icon-HASH.svg', 'assets/style-HASH.css']);
  const types: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8', svg: 'image/svg+xml; charset=utf-8' };
  for (const asset of assets) {
    const answer = await call(context.api, 'GET', `/ui/${asset}`);
    assert.is(answer.status, 200, asset);
    assert.is(answer.headers['content-type'], types[asset.split('.').pop()!]);
    assert.is(answer.headers['cache-control'], 'public, max-age=31536000, immutable');
    const again = await call(context.api, 'GET', `/ui/${asset}`, { headers: { 'if-none-match': answer.headers['etag']! } });
    assert.is(again.status, 304);
  }
  assert.not.match(html, /https?:/, 'nothing from another origin');
  assert.is((await call(context.api, 'GET', '/ui/assets/app-NOPE.js')).status, 404);
});

test('the page runs under its CSP with nothing refused, at /ui without a prefix too; markup put in the DOM never runs', async (context) => {
  const ids = await runToEnd(context.api, 'echo', { message: 'csp' }, uniqueId('csp'));
  const { page, context: browserContext, problems } = await openUi(context);
  try {
    // Straight at the API's own /ui (no prefix, no trailing slash) as well as behind the proxy.
    await page.goto(`${context.api.baseUrl}/ui`);
    await page.getByRole('link', { name: ids.workflowId, exact: true }).waitFor();
    await page.getByRole('link', { name: ids.workflowId, exact: true }).click();
    await page.waitForURL(`${context.api.baseUrl}/ui/${runPath(ids)}`);
    await page.locator('.status-line .badge.status-completed').waitFor();
    // A string, not a function: the test runner's transpiler would add helpers the page does not have.
    const attempts = await page.evaluate(`(() => {
      const outcome = (action) => { try { action(); return 'ran'; } catch (error) { return error.name; } };
      return {
        html: outcome(() => document.body.insertAdjacentHTML('beforeend', '<img src="x" onerror="window.pwned = 1">')),
        script: outcome(() => { const script = document.createElement('script'); script.textContent = 'window.pwned = 2'; document.body.append(script); }),
        pwned: window.pwned ?? null,
      };
    })()`);
    assert.equal(attempts, { html: 'TypeError', script: 'TypeError', pwned: null });
    const refused = problems.filter((problem) => !/requires 'Trusted(HTML|Script)' assignment/.test(problem));
    assert.equal(refused, [], 'the page itself triggers no CSP violation');
  } finally {
    await browserContext.close();
  }
});

test(`the first load transfers under ${FIRST_LOAD_LIMIT_BYTES / 1024} KB`, async (context) => {
  const browserContext = await context.browser.newContext();
  const page = await browserContext.newPage();
  try {
    // Requests are kept, not a sizes() call per event: one finishing after the measurement would leave a call that
    // fails when the context closes, an unhandled rejection that ends the whole suite process without its summary.
    const finished: Request[] = [];
    page.on('requestfinished', (request) => finished.push(request));
    // Chromium asks for the icon once the document has loaded, at times after the list is drawn: it is the last file.
    const iconLoaded = page.waitForEvent('requestfinished', (request) => new URL(request.url()).pathname.endsWith('.svg'));
    iconLoaded.catch(() => {}); // awaited below; a test failing before that closes the context, which rejects it
    await page.goto(`${context.ui}runs?catalog=ui`);
    await page.getByRole('status').filter({ hasText: /runs on this page|No runs/ }).waitFor();
    await iconLoaded;
    const files = await Promise.all(
      finished
        .filter((request) => new URL(request.url()).pathname.includes('/ui'))
        .map(async (request) => {
          const size = await request.sizes();
          return { url: request.url(), bytes: size.responseBodySize + size.responseHeadersSize };
        }),
    );
    const fileBytes = files.reduce((sum, entry) => sum + entry.bytes, 0);
    assert.is(files.length, 4, files.map((entry) => entry.url).join('\n'));
    assert.ok(fileBytes < FIRST_LOAD_LIMIT_BYTES, `the page's files are ${fileBytes} bytes`);
  } finally {
    await browserContext.close();
  }
});

test('labelled controls, and readable at 200 % zoom: nothing scrolls sideways on any page', async (context) => {
  const ids = await runToEnd(context.api, 'ui_pipeline', { topic: 'zoom', pages: 2, pageMs: 50 }, uniqueId('zoom'));
  // A 1280 × 800 window at 200 % zoom lays out as 640 × 400 CSS pixels.
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui', { viewport: { width: 640, height: 400 } });
  try {
    for (const path of ['runs?catalog=ui', runPath(ids), 'start?workflow=ui_ticket']) {
      await page.goto(`${context.ui}${path}`);
      await page.locator('h1').waitFor();
      await page.waitForLoadState('networkidle').catch(() => {});
      if (path.startsWith('runs/')) await page.locator('.timeline-row[data-step="summarise_pages"]').waitFor();
      if (path.startsWith('start')) await page.getByLabel('title', { exact: true }).waitFor();
      const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
      assert.ok(overflow <= 0, `${path}: the page is ${overflow} px wider than the window`);
      const unnamed = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea, button, a[href]')]
        .filter((control) => !((control.labels?.length ?? 0) > 0 || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby') || control.textContent.trim()))
        .map((control) => control.outerHTML.slice(0, 120))`);
      assert.equal(unnamed, [], `${path}: every control has an accessible name`);
      if (path.startsWith('runs/')) await screenshot(page, 'zoom-200-run');
    }
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

// Engine-independent (the process and the switch are the same on both engines): run once, with the embedded engine.
if (engineUnderTest() !== 'temporal') {
  test('npm start serves the UI: a user opens /ui and sees their runs', async (context) => {
    const traceDir = await mkdtemp(join(tmpdir(), 'fg-ui-start-'));
    const server = await startServerProcess({ ENGINE: 'memory', TRACE_DIR: traceDir });
    const browserContext = await context.browser.newContext();
    try {
      const run = await call({ baseUrl: server.url }, 'POST', '/workflow/run', { json: { workflowName: 'summarise', input: { text: 'a user opens the page and sees the runs', maxWords: 4 } } });
      assert.is(run.status, 200);
      const page = await browserContext.newPage();
      await page.goto(`${server.url}/ui`);
      await page.getByRole('link', { name: run.body.workflowId, exact: true }).waitFor();
    } finally {
      await browserContext.close();
      await server.stop();
      await rm(traceDir, { recursive: true, force: true });
    }
  });

  test('mounted in Express under /flows, the embeddable handler serves the UI there and the page calls /flows/...', async (context) => {
    const traceDir = await mkdtemp(join(tmpdir(), 'fg-ui-express-'));
    const flowgate = await createFlowgate({ workflows: Object.values(basic), logger: new PinoLogger({ level: 'silent' }), env: { TRACE_DIR: traceDir } });
    const app = express();
    // Express strips the prefix and keeps it in req.baseUrl: the handler needs no basePath of its own here.
    app.use('/flows', flowgate.nodeHandler);
    const server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const browserContext = await context.browser.newContext();
    try {
      const run = await call({ baseUrl: `${url}/flows` }, 'POST', '/workflow/run', { json: { workflowName: 'echo', input: { message: 'mounted' } } });
      assert.is(run.status, 200);
      const page = await browserContext.newPage();
      const calls: string[] = [];
      page.on('request', (request) => calls.push(new URL(request.url()).pathname));
      await page.goto(`${url}/flows/ui/runs`);
      await page.getByRole('link', { name: run.body.workflowId, exact: true }).click();
      await page.locator('.status-line .badge.status-completed').waitFor();
      assert.ok(calls.includes('/flows/workflow/runs'), calls.join('\n'));
      assert.ok(calls.some((path) => /^\/flows\/ui\/assets\/app-\w+\.js$/.test(path)), calls.join('\n'));
      assert.not.ok(calls.some((path) => !path.startsWith('/flows/')), 'every call stays under the mount path');
    } finally {
      await browserContext.close();
      await new Promise((resolve) => server.close(resolve));
      await flowgate.close();
      await rm(traceDir, { recursive: true, force: true });
    }
  });

  test('UI=off: /ui and its files are an unknown path (404 NotFoundError)', async () => {
    const traceDir = await mkdtemp(join(tmpdir(), 'fg-ui-off-'));
    const server = await startFlowgateServer({ env: { HOST: '127.0.0.1', PORT: '0', UI: 'off', TRACE_DIR: traceDir, LOG_LEVEL: 'silent' }, workers: [] });
    try {
      for (const path of ['/ui', '/ui/runs/a/b', '/ui/assets/app.js']) {
        const answer = await call({ baseUrl: server.url }, 'GET', path);
        assert.is(answer.status, 404, path);
        assert.is(answer.body.error, 'NotFoundError');
      }
    } finally {
      await server.close();
      await rm(traceDir, { recursive: true, force: true });
    }
  });
}

test.run();
