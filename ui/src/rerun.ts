import type { RerunView, RunStatusView } from '../../core/api/views.js';
import { runPath, type Api } from './api.js';

/**
 * Rerun: a new run of the same workflow, in the same catalog, with the same input, under a new workflow id the API
 * makes up (POST /workflow/{id}/runs/{rid}/rerun, which reads the run's input itself); the new run records the run
 * it repeats (`rerunOf`).
 */
export function rerun(api: Api, run: RunStatusView): Promise<RerunView> {
  return api.post<RerunView>(`${runPath(run.workflowId, run.runId)}/rerun`);
}
