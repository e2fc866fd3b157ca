import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ValidationError } from '../../../core/domain/errors.js';
import { Router, splitPath } from '../../../adapters/http/router.js';
import { createRoutes } from '../../../adapters/http/routes.js';

const route = (method: string, path: string) => ({ method, path, name: `${method} ${path}` });
const router = new Router([
  route('GET', '/workflow/list'),
  route('GET', '/workflow/runs'),
  route('POST', '/workflow'),
  route('GET', '/workflow/{id}/status'),
  route('GET', '/workflow/{id}/runs/{rid}/status'),
  route('PATCH', '/workflow/{id}/stop'),
  route('PATCH', '/workflow/{id}/runs/{rid}/stop'),
  route('POST', '/workflow/{id}/runs/{rid}/reset'),
]);

test('static segments beat parameters', () => {
  const match = router.match('GET', '/workflow/list');
  assert.is(match.kind, 'found');
  if (match.kind === 'found') {
    assert.is(match.route.name, 'GET /workflow/list');
    assert.equal(match.params, {});
  }
});

test('a workflow id that equals a static segment still reaches the parameter route', () => {
  const match = router.match('GET', '/workflow/list/status');
  assert.is(match.kind, 'found');
  if (match.kind === 'found') assert.equal(match.params, { id: 'list' });
  const runs = router.match('GET', '/workflow/runs/runs/abc/status');
  assert.is(runs.kind, 'found');
  if (runs.kind === 'found') assert.equal(runs.params, { id: 'runs', rid: 'abc' });
});

test('segments are decoded after splitting: an encoded slash stays inside the id', () => {
  const match = router.match('GET', '/workflow/orders%2F2024%20q1/status');
  assert.is(match.kind, 'found');
  if (match.kind === 'found') assert.equal(match.params, { id: 'orders/2024 q1' });
  const unicode = router.match('GET', `/workflow/${encodeURIComponent('été-☃')}/runs/r1/status`);
  if (unicode.kind !== 'found') throw new Error('expected a match');
  assert.equal(unicode.params, { id: 'été-☃', rid: 'r1' });
});

test('encoded static segments match their decoded form', () => {
  assert.is(router.match('GET', '/work%66low/list').kind, 'found');
});

test('malformed percent-encoding is a ValidationError', () => {
  for (const path of ['/workflow/%E0%A4%A/status', '/workflow/%zz/status', '/workflow/100%/status']) {
    try {
      router.match('GET', path);
      assert.unreachable(`no error for ${path}`);
    } catch (error) {
      assert.instance(error, ValidationError);
      assert.is((error as InstanceType<typeof ValidationError>).issues?.[0]?.code, 'invalid_path_encoding');
    }
  }
});

test('unknown paths are not found; trailing slashes are not folded', () => {
  assert.is(router.match('GET', '/nope').kind, 'not-found');
  assert.is(router.match('GET', '/workflow/list/').kind, 'not-found');
  assert.is(router.match('GET', '/workflow/a/b/c/d/e').kind, 'not-found');
  assert.is(router.match('GET', 'workflow/list').kind, 'not-found');
});

test('a known path with another method is 405 with the allowed methods', () => {
  const match = router.match('DELETE', '/workflow/abc/stop');
  assert.equal(match, { kind: 'method-not-allowed', allow: ['PATCH'] });
  const list = router.match('POST', '/workflow/list');
  assert.equal(list, { kind: 'method-not-allowed', allow: ['GET'] });
});

test('405 lists methods of every path shape that matched', () => {
  // /workflow/{id}/runs/{rid}/stop (PATCH) and .../reset (POST) are different paths; only one matches each.
  assert.equal(router.match('GET', '/workflow/a/runs/b/reset'), { kind: 'method-not-allowed', allow: ['POST'] });
});

test('a method served only by the parameter branch is found past a static node', () => {
  const mixed = new Router([route('GET', '/a/fixed'), route('PATCH', '/a/{x}')]);
  const match = mixed.match('PATCH', '/a/fixed');
  assert.is(match.kind, 'found');
  if (match.kind === 'found') assert.equal(match.params, { x: 'fixed' });
  assert.equal(mixed.match('POST', '/a/fixed'), { kind: 'method-not-allowed', allow: ['GET', 'PATCH'] });
});

test('conflicting and duplicate routes are refused at construction', () => {
  assert.throws(() => new Router([route('GET', '/a/{x}'), route('GET', '/a/{x}')]), /Duplicate route/);
  assert.throws(() => new Router([route('GET', '/a/{x}/b'), route('GET', '/a/{y}/c')]), /conflicts/);
});

test('splitPath leaves unencoded segments alone and keeps empty ones', () => {
  assert.equal(splitPath('/workflow//status'), ['workflow', '', 'status']);
  assert.equal(splitPath('/a%2Fb/c'), ['a/b', 'c']);
});

test('the real route table builds a router with every documented endpoint', () => {
  const routes = createRoutes({ runTimeoutMaxSeconds: 3600, defaultRunTimeoutSeconds: 30 });
  const real = new Router(routes);
  for (const { method, path } of routes) {
    const concrete = path.replace('{id}', 'wf-1').replace('{rid}', '0b7f8c3e-5a1d-4e2b-9c6f-1a2b3c4d5e6f');
    const match = real.match(method, concrete);
    assert.is(match.kind, 'found', `${method} ${path}`);
    if (match.kind === 'found') assert.is(match.route.path, path);
  }
  assert.is(routes.length, 37);
});

test.run();
