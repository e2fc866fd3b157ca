import { isLimited, mayUse, narrowRunFilter, type Access } from '../domain/access.js';
import { runNotFound, type FlowgateError } from '../domain/errors.js';
import type { RunDescription, RunRef } from '../domain/run.js';
import type { CoreDeps } from './deps.js';

/*
 * The key's catalog and workflow limits applied to runs (docs/security.md). A run outside them is answered exactly as
 * a run that does not exist (404 with the engines' own wording), so a limited key learns nothing of it.
 */

/** Throws the 404 of a missing run when the key may not see `ref`. An unlimited key costs nothing (no engine call). */
export async function requireRunAccess(deps: Pick<CoreDeps, 'engine'>, access: Access, ref: RunRef): Promise<void> {
  if (!isLimited(access)) return;
  const run = await deps.engine.describe(ref);
  if (!mayUse(access, run)) throw hiddenRun(ref);
}

/** The run as the engines word a run they do not have. */
export function hiddenRun(ref: RunRef): FlowgateError {
  const { workflowId, runId } = ref;
  return runNotFound(workflowId, runId);
}

/** A key-aware predicate for runs already described (lists, bulk operations). */
export function runVisibleTo(access: Access): (run: RunDescription) => boolean {
  return isLimited(access) ? (run) => mayUse(access, run) : () => true;
}

export { narrowRunFilter };
