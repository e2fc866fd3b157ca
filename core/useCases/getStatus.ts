import type { RunStatusView } from '../api/views.js';
import { mayUse, type Access } from '../domain/access.js';
import type { RunRef } from '../domain/run.js';
import { toStatusView } from '../results/statusView.js';
import type { CoreDeps } from './deps.js';
import { hiddenRun } from './runAccess.js';

/** The run as described; a run the key may not see is answered as a missing one. */
export async function getStatus(deps: Pick<CoreDeps, 'engine'>, ref: RunRef, access?: Access): Promise<RunStatusView> {
  const run = await deps.engine.describe(ref);
  if (!mayUse(access, run)) throw hiddenRun(ref);
  return toStatusView(run);
}
