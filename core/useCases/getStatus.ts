import type { RunStatusView } from '../api/views.js';
import type { RunRef } from '../domain/run.js';
import { toStatusView } from '../results/statusView.js';
import type { CoreDeps } from './deps.js';

export async function getStatus(deps: Pick<CoreDeps, 'engine'>, ref: RunRef): Promise<RunStatusView> {
  return toStatusView(await deps.engine.describe(ref));
}
