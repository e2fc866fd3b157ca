import type { KeyDescription } from '../../core/api/views.js';
import type { Api } from './api.js';
import type { TokenKeeper } from './token.js';

/** The scopes whose actions the page offers or hides (reading needs `read`, which every page already proves). */
export type ActionScope = 'start' | 'control';

/**
 * What the key the page uses may do (GET /auth/key), asked once per token: the page offers only the actions it
 * allows and says why the others are missing. Undefined when the server could not say (an unreachable API): the page
 * then offers every action, and the server's answer to one decides.
 */
export class KeyAccess {
  private current: Promise<KeyDescription | undefined> | undefined;

  constructor(
    private readonly api: Api,
    tokens: TokenKeeper,
  ) {
    tokens.onChange(() => {
      this.current = undefined;
    });
  }

  describe(): Promise<KeyDescription | undefined> {
    this.current ??= this.api.get<KeyDescription>('/auth/key').catch(() => {
      this.current = undefined;
      return undefined;
    });
    return this.current;
  }
}

/** Whether the key may take actions of `scope` (true when the page does not know: the server decides). */
export function allows(key: KeyDescription | undefined, scope: ActionScope): boolean {
  return key === undefined || key.can[scope];
}

/** Why actions are missing, in a sentence; undefined when every action is offered. */
export function missingActions(key: KeyDescription | undefined): string | undefined {
  if (key?.key == null) return undefined;
  const missing: string[] = [];
  if (!key.can.control) missing.push('stop, terminate, feedback and reset need the "control" scope');
  if (!key.can.start) missing.push('rerun needs the "start" scope');
  if (missing.length === 0) return undefined;
  return `API key "${key.key.id}" (scopes: ${key.key.scopes.join(', ')}) cannot change runs here: ${missing.join('; ')}.`;
}

/** Why a schedule's actions are missing, in a sentence; undefined when the key may pause, unpause and trigger. */
export function missingScheduleActions(key: KeyDescription | undefined): string | undefined {
  if (key?.key == null || key.can.control) return undefined;
  return `API key "${key.key.id}" (scopes: ${key.key.scopes.join(', ')}) cannot change schedules here: pause, unpause and trigger need the "control" scope.`;
}
