import type { KeyDescription } from '../api/views.js';
import { ForbiddenError } from './errors.js';

/*
 * The access model (docs/security.md): an API key has scopes, and may be limited to catalogs and workflows. Pure rules,
 * shared by the transport (which scope an endpoint needs) and the use cases (which runs and workflows a key may see).
 */

/** What a key may do. `admin` includes the others (and GET /metrics when it is behind authentication). */
export const SCOPES = ['read', 'start', 'control', 'admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** What each scope opens, for messages and docs. */
export const SCOPE_MEANING: Readonly<Record<Scope, string>> = {
  read: 'every GET: workflows, runs, results, history, traces, schedules',
  start: 'start, run-and-wait and rerun',
  control: 'feedback, stop, terminate, reset, the bulk operations, and every change to a schedule',
  admin: 'everything, and GET /metrics',
};

/** An authenticated API key: who is calling (its `id`, never its secret) and what it may do. */
export interface AccessKey {
  /** Shown in logs and records; never secret. */
  readonly id: string;
  readonly scopes: readonly Scope[];
  /** Only runs and workflows of these catalogs; absent: every catalog. */
  readonly catalogs?: readonly string[] | undefined;
  /** Only runs and workflows of these names; absent: every workflow. */
  readonly workflows?: readonly string[] | undefined;
  /** After this instant the key authenticates nothing (401); absent: it does not expire. */
  readonly expiresAt?: Date | undefined;
}

/**
 * Who a call acts for: a key, or `undefined` when authentication is off or the embedding application calls the
 * use cases itself (no limits; nothing to record).
 */
export type Access = AccessKey | undefined;

/** A key id: a plain name, no spaces (it is shown in logs and records, and is Temporal's identity of its requests). */
export const KEY_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
export const KEY_ID_RULE = 'is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit';

/** The id `API_AUTH_TOKEN` authenticates as: one key with every scope. */
export const AUTH_TOKEN_KEY_ID = 'token';

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** Whether the key holds the scope (`admin` holds them all). */
export function hasScope(key: AccessKey, scope: Scope): boolean {
  return key.scopes.includes(scope) || key.scopes.includes('admin');
}

/** 403 ForbiddenError naming the scope the key lacks. */
export function requireScope(key: AccessKey, scope: Scope, what: string): void {
  if (hasScope(key, scope)) return;
  throw new ForbiddenError(`API key "${key.id}" lacks the "${scope}" scope, which ${what} needs (it has: ${key.scopes.join(', ')}).`);
}

/**
 * What the calling key may do, as GET /auth/key answers it (docs/security.md): its id, scopes, limits and expiry
 * (never its secret), and `can`, each scope's answer with `admin` counted in, so a client need not know that rule.
 * Without authentication there is no key, and everything is allowed. Its shape is the wire's (core/api/views.ts).
 */
export function describeKey(access: Access): KeyDescription {
  const can = Object.fromEntries(SCOPES.map((scope) => [scope, access === undefined || hasScope(access, scope)])) as Record<Scope, boolean>;
  if (access === undefined) return { authentication: 'off', key: null, can };
  return {
    authentication: 'on',
    key: {
      id: access.id,
      scopes: [...access.scopes],
      catalogs: access.catalogs ? [...access.catalogs] : null,
      workflows: access.workflows ? [...access.workflows] : null,
      expiresAt: access.expiresAt ? access.expiresAt.toISOString() : null,
    },
    can,
  };
}

/** Whether the key is limited to some catalogs or workflows (an unlimited key skips every per-run check). */
export function isLimited(access: Access): access is AccessKey {
  return access !== undefined && (access.catalogs !== undefined || access.workflows !== undefined);
}

/** A workflow (or a run of it) as the limits see it. */
export interface WorkflowPlace {
  catalog: string;
  workflowName: string;
}

/** Whether the key may see and touch this workflow and its runs. */
export function mayUse(access: Access, place: WorkflowPlace): boolean {
  if (access === undefined) return true;
  return mayUseCatalog(access, place.catalog) && (access.workflows === undefined || access.workflows.includes(place.workflowName));
}

export function mayUseCatalog(access: Access, catalog: string): boolean {
  return access?.catalogs === undefined || access.catalogs.includes(catalog);
}

/** 403 for starting a workflow outside the key's limits (its existence is the catalog's to tell, not a secret). */
export function requireWorkflow(access: Access, place: WorkflowPlace): void {
  if (mayUse(access, place)) return;
  throw new ForbiddenError(`API key "${access!.id}" may not use workflow "${place.workflowName}" of catalog "${place.catalog}" (${limitsOf(access!)}).`);
}

/** 403 for listing a catalog outside the key's limits. */
export function requireCatalog(access: Access, catalog: string): void {
  if (mayUseCatalog(access, catalog)) return;
  throw new ForbiddenError(`API key "${access!.id}" may not use catalog "${catalog}" (${limitsOf(access!)}).`);
}

/** Whether the key has expired at `now`. */
export function isExpired(key: AccessKey, now: Date): boolean {
  return key.expiresAt !== undefined && key.expiresAt.getTime() <= now.getTime();
}

/**
 * A runs filter narrowed to what the key may see: `none` when the filter asks only for what the key may not see,
 * else the filter with a catalog or workflow filled in where the key allows exactly one, and whether every run the
 * narrowed filter matches is one the key may see (so no run needs checking one by one).
 */
export function narrowRunFilter<F extends { catalog?: string | undefined; workflowName?: string | undefined }>(
  access: Access,
  filter: F,
): { kind: 'none' } | { kind: 'filter'; filter: F; exact: boolean } {
  if (!isLimited(access)) return { kind: 'filter', filter, exact: true };
  const narrowed = { ...filter };
  if (access.catalogs !== undefined) {
    if (narrowed.catalog !== undefined && !access.catalogs.includes(narrowed.catalog)) return { kind: 'none' };
    if (narrowed.catalog === undefined && access.catalogs.length === 1) narrowed.catalog = access.catalogs[0];
  }
  if (access.workflows !== undefined) {
    if (narrowed.workflowName !== undefined && !access.workflows.includes(narrowed.workflowName)) return { kind: 'none' };
    if (narrowed.workflowName === undefined && access.workflows.length === 1) narrowed.workflowName = access.workflows[0];
  }
  const catalogPinned = access.catalogs === undefined || narrowed.catalog !== undefined;
  const workflowPinned = access.workflows === undefined || narrowed.workflowName !== undefined;
  return { kind: 'filter', filter: narrowed, exact: catalogPinned && workflowPinned };
}

function limitsOf(key: AccessKey): string {
  const parts = [];
  if (key.catalogs !== undefined) parts.push(`catalogs: ${key.catalogs.join(', ')}`);
  if (key.workflows !== undefined) parts.push(`workflows: ${key.workflows.join(', ')}`);
  return `it is limited to ${parts.join('; ')}`;
}
