import type { ListRunsRequest } from '../api/requests.js';
import type { RunListView } from '../api/views.js';
import { toStatusView } from '../results/statusView.js';
import type { CoreDeps } from './deps.js';

export async function listRuns(deps: Pick<CoreDeps, 'engine'>, request: ListRunsRequest): Promise<RunListView> {
  const list = await deps.engine.listRuns(request);
  return { runs: list.runs.map(toStatusView), nextPageToken: list.nextPageToken };
}
