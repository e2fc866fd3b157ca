import type { RunStatusView, StartView } from '../../core/api/views.js';
import type { Api } from './api.js';

/**
 * Rerun: a new run of the same workflow, in the same catalog, with the same input. The API has no rerun endpoint
 * yet, so this starts one through POST /workflow (under a new workflow id the API makes up); the one place to point
 * at POST /workflow/{id}/runs/{rid}/rerun when it exists.
 */
export function rerun(api: Api, run: RunStatusView, input: unknown): Promise<StartView> {
  return api.post<StartView>('/workflow', { workflowName: run.workflowName, catalog: run.catalog, input });
}
