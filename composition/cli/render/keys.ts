import type { KeyDescription } from '../../../adapters/client/index.js';
import { fields } from './text.js';

/** `flowgate whoami`: the key's facts, then what it may do in words (docs/security.md, Scopes). */
export function renderKeyDescription(description: KeyDescription): string {
  const { key, can } = description;
  if (key === null) return 'authentication is off: every call is allowed\n';
  const allowed = (['read', 'start', 'control', 'admin'] as const).map((scope) => `${scope} ${can[scope] ? 'yes' : 'no'}`).join(', ');
  return fields([
    ['key', key.id],
    ['scopes', key.scopes.join(', ')],
    ['catalogs', key.catalogs?.join(', ') ?? 'every catalog'],
    ['workflows', key.workflows?.join(', ') ?? 'every workflow'],
    ['expires', key.expiresAt ?? 'never'],
    ['may', allowed],
  ]);
}
