import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uiRootFrom, UI_CONTENT_SECURITY_POLICY } from '../../../adapters/http/ui.js';
import { authed, call, harness, TOKEN } from './appHarness.js';

/*
 * The browser UI's files as the app serves them (adapters/http/ui.ts), from a built UI made here by hand: what is
 * asserted is serving (types, caching, security headers, deep links, auth, UI off), not the page, which
 * tests/browser drives in Chromium.
 */

const PAGE = '<!doctype html><script type="module" src="%UI_ROOT%assets/app-1a2b3c.js"></script><link rel="stylesheet" href="%UI_ROOT%assets/app-4d5e6f.css">';
const SCRIPT = 'console.log("flowgate");';

const test = suite<{ dir: string }>('the browser UI files', { dir: '' });

test.before(async (context) => {
  context.dir = await mkdtemp(join(tmpdir(), 'fg-ui-'));
  await mkdir(join(context.dir, 'assets'));
  await writeFile(join(context.dir, 'index.html'), PAGE);
  await writeFile(join(context.dir, 'assets', 'app-1a2b3c.js'), SCRIPT);
  await writeFile(join(context.dir, 'assets', 'app-4d5e6f.css'), 'body{margin:0}');
  await writeFile(join(context.dir, 'assets', 'icon-000.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  await writeFile(join(context.dir, 'assets', 'notes.txt'), 'not a type the UI serves');
});

test.after(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

test('GET /ui is the page: HTML, strict CSP, nosniff, revalidated every time, asset paths relative to it', async ({ dir }) => {
  const answer = await call(harness({ uiDir: dir }), 'GET', '/ui');
  assert.is(answer.status, 200);
  assert.is(answer.headers['content-type'], 'text/html; charset=utf-8');
  assert.is(answer.headers['content-security-policy'], UI_CONTENT_SECURITY_POLICY);
  assert.match(UI_CONTENT_SECURITY_POLICY, /default-src 'self'/);
  assert.not.match(UI_CONTENT_SECURITY_POLICY, /unsafe-inline|unsafe-eval|https?:/);
  assert.is(answer.headers['x-content-type-options'], 'nosniff');
  assert.is(answer.headers['cache-control'], 'no-cache');
  assert.is(answer.headers['referrer-policy'], 'no-referrer');
  assert.match(answer.headers['etag'] ?? '', /^"[A-Za-z0-9_-]{27}"$/);
  assert.is(answer.text, PAGE.replaceAll('%UI_ROOT%', 'ui/'));
});

test('deep links are the page, with asset paths that resolve to /ui/assets from where the browser is', async ({ dir }) => {
  const app = harness({ uiDir: dir });
  for (const [path, root] of [['/ui/', './'], ['/ui/runs', './'], ['/ui/runs/order%2F42/0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f', '../../'], ['/ui/start/echo', '../']] as const) {
    const answer = await call(app, 'GET', path);
    assert.is(answer.status, 200, path);
    assert.is(answer.text, PAGE.replaceAll('%UI_ROOT%', root), path);
    const pageUrl = new URL(`http://host/prefix${path}`);
    assert.is(new URL(`${root}assets/app-1a2b3c.js`, pageUrl).pathname, '/prefix/ui/assets/app-1a2b3c.js', path);
  }
  assert.is(new URL(`${uiRootFrom('')}assets/a.js`, 'http://host/any/prefix/ui').pathname, '/any/prefix/ui/assets/a.js');
});

test('assets: their content type, a year of caching (hashed names), and 304 for a matching If-None-Match', async ({ dir }) => {
  const app = harness({ uiDir: dir });
  const script = await call(app, 'GET', '/ui/assets/app-1a2b3c.js');
  assert.is(script.status, 200);
  assert.is(script.text, SCRIPT);
  assert.is(script.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.is(script.headers['cache-control'], 'public, max-age=31536000, immutable');
  assert.is((await call(app, 'GET', '/ui/assets/app-4d5e6f.css')).headers['content-type'], 'text/css; charset=utf-8');
  assert.is((await call(app, 'GET', '/ui/assets/icon-000.svg')).headers['content-type'], 'image/svg+xml; charset=utf-8');
  const etag = script.headers['etag']!;
  for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
    const again = await call(app, 'GET', '/ui/assets/app-1a2b3c.js', { headers: { 'if-none-match': ifNoneMatch } });
    assert.is(again.status, 304, ifNoneMatch);
    assert.is(again.text, '');
    assert.is(again.headers['etag'], etag);
  }
  assert.is((await call(app, 'GET', '/ui/assets/app-1a2b3c.js', { headers: { 'if-none-match': '"stale"' } })).status, 200);
  const page = await call(app, 'GET', '/ui/');
  assert.is((await call(app, 'GET', '/ui/', { headers: { 'if-none-match': page.headers['etag']! } })).status, 304);
});

test('an unknown asset, a file of another type and a path escape are 404 NotFoundError', async ({ dir }) => {
  const app = harness({ uiDir: dir });
  for (const path of ['/ui/assets/nope.js', '/ui/assets/notes.txt', '/ui/assets/..%2Findex.html', '/ui/assets/../index.html', '/ui/assets/', '/ui/assets/sub/app-1a2b3c.js']) {
    const answer = await call(app, 'GET', path);
    assert.is(answer.status, 404, path);
    assert.is(answer.json.error, 'NotFoundError', path);
  }
});

test('HEAD is answered like GET; other methods are 405 with Allow: GET, HEAD', async ({ dir }) => {
  const app = harness({ uiDir: dir });
  const head = await call(app, 'HEAD', '/ui/runs');
  assert.is(head.status, 200);
  assert.is(head.headers['content-type'], 'text/html; charset=utf-8');
  for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
    const answer = await call(app, method, '/ui/runs', { json: {} });
    assert.is(answer.status, 405, method);
    assert.is(answer.json.error, 'MethodNotAllowedError');
    assert.is(answer.headers['allow'], 'GET, HEAD');
  }
});

test('with a token, the files are public and the data is not', async ({ dir }) => {
  const app = harness({ uiDir: dir, authToken: TOKEN });
  assert.is((await call(app, 'GET', '/ui')).status, 200);
  assert.is((await call(app, 'GET', '/ui/runs/x/y')).status, 200);
  assert.is((await call(app, 'GET', '/ui/assets/app-1a2b3c.js')).status, 200);
  assert.is((await call(app, 'GET', '/workflow/runs')).status, 401);
  assert.is((await call(app, 'GET', '/workflow/runs', authed)).status, 200);
});

test('ui: false makes /ui an unknown path: 404 NotFoundError, 401 first without a valid token', async ({ dir }) => {
  const off = await call(harness({ uiDir: dir, ui: false }), 'GET', '/ui');
  assert.is(off.status, 404);
  assert.is(off.json.error, 'NotFoundError');
  assert.not.ok(off.headers['content-security-policy']);
  assert.is((await call(harness({ uiDir: dir, ui: false }), 'GET', '/ui/assets/app-1a2b3c.js')).status, 404);
  assert.is((await call(harness({ uiDir: dir, ui: false, authToken: TOKEN }), 'GET', '/ui')).status, 401);
});

test('a UI that was never built: 404 saying how to build it, and one warning at start-up', async ({ dir }) => {
  const unbuilt = harness({ uiDir: join(dir, 'missing') });
  assert.equal(
    unbuilt.logger.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message),
    ['the browser UI is not built: GET /ui answers 404 until `npm run build` writes it'],
  );
  const answer = await call(unbuilt, 'GET', '/ui/runs');
  assert.is(answer.status, 404);
  assert.is(answer.json.error, 'NotFoundError');
  assert.match(answer.json.message, /npm run build/);
});

test('/ui-like paths that are not the UI are left to the API', async ({ dir }) => {
  const answer = await call(harness({ uiDir: dir }), 'GET', '/uixyz');
  assert.is(answer.status, 404);
  assert.not.ok(answer.headers['content-security-policy']);
});

test.run();
