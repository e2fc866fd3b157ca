import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hasScope, isExpired, mayUse, narrowRunFilter, requireCatalog, requireScope, requireWorkflow, type AccessKey } from '../../../core/domain/access.js';
import { ForbiddenError } from '../../../core/domain/errors.js';

const dashboard: AccessKey = { id: 'dashboard', scopes: ['read'] };
const ci: AccessKey = { id: 'ci', scopes: ['start', 'read'], catalogs: ['main'], workflows: ['echo'] };
const operator: AccessKey = { id: 'operator', scopes: ['read', 'control'] };
const admin: AccessKey = { id: 'root', scopes: ['admin'] };

test('a key holds its scopes; admin holds every scope', () => {
  assert.ok(hasScope(dashboard, 'read'));
  assert.not.ok(hasScope(dashboard, 'start'));
  assert.not.ok(hasScope(operator, 'start'));
  assert.ok(hasScope(operator, 'control'));
  for (const scope of ['read', 'start', 'control', 'admin'] as const) assert.ok(hasScope(admin, scope), scope);
  assert.not.ok(hasScope(operator, 'admin'));
});

test('a missing scope is a ForbiddenError naming the scope, the operation and the key, never a secret', () => {
  try {
    requireScope(dashboard, 'control', 'POST /workflow/runs/terminate');
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ForbiddenError);
    assert.match((error as Error).message, /"control" scope/);
    assert.match((error as Error).message, /POST \/workflow\/runs\/terminate/);
    assert.match((error as Error).message, /"dashboard"/);
  }
  requireScope(admin, 'control', 'anything');
});

test('limits: a key sees only its catalogs and workflows; no limits and no key see everything', () => {
  assert.ok(mayUse(ci, { catalog: 'main', workflowName: 'echo' }));
  assert.not.ok(mayUse(ci, { catalog: 'other', workflowName: 'echo' }));
  assert.not.ok(mayUse(ci, { catalog: 'main', workflowName: 'sleeper' }));
  assert.ok(mayUse(dashboard, { catalog: 'other', workflowName: 'other_only' }));
  assert.ok(mayUse(undefined, { catalog: 'other', workflowName: 'other_only' }));
  const catalogOnly: AccessKey = { id: 'c', scopes: ['read'], catalogs: ['other'] };
  assert.ok(mayUse(catalogOnly, { catalog: 'other', workflowName: 'anything' }));
  assert.throws(() => requireWorkflow(ci, { catalog: 'main', workflowName: 'sleeper' }), (error: unknown) => error instanceof ForbiddenError && /sleeper/.test((error as Error).message));
  assert.throws(() => requireCatalog(ci, 'other'), (error: unknown) => error instanceof ForbiddenError);
  requireWorkflow(ci, { catalog: 'main', workflowName: 'echo' });
  requireCatalog(dashboard, 'other');
});

test('a runs filter is narrowed to the key: pinned where it allows one, none when it asks for what the key may not see', () => {
  const running: { status: string; catalog?: string } = { status: 'running' };
  assert.equal(narrowRunFilter(dashboard, running), { kind: 'filter', filter: running, exact: true });
  assert.equal(narrowRunFilter(ci, {}), { kind: 'filter', filter: { catalog: 'main', workflowName: 'echo' }, exact: true });
  assert.equal(narrowRunFilter(ci, { catalog: 'other' }), { kind: 'none' });
  assert.equal(narrowRunFilter(ci, { workflowName: 'sleeper' }), { kind: 'none' });
  const two: AccessKey = { id: 'two', scopes: ['read'], workflows: ['echo', 'sleeper'] };
  assert.equal(narrowRunFilter(two, {}), { kind: 'filter', filter: {}, exact: false });
  assert.equal(narrowRunFilter(two, { workflowName: 'sleeper' }), { kind: 'filter', filter: { workflowName: 'sleeper' }, exact: true });
});

test('a key expires at its expiresAt', () => {
  const key: AccessKey = { id: 'k', scopes: ['read'], expiresAt: new Date('2027-01-01T00:00:00Z') };
  assert.not.ok(isExpired(key, new Date('2026-12-31T23:59:59Z')));
  assert.ok(isExpired(key, new Date('2027-01-01T00:00:00Z')));
  assert.not.ok(isExpired(dashboard, new Date('2999-01-01T00:00:00Z')));
});

test.run();
