import { call, waitForStatus } from '../../support/http.js';
import type { TestApi } from '../../support/engines.js';

/** Starts a run through the API (not the page) and returns its ids. */
export async function startRun(api: TestApi, workflowName: string, input: unknown, workflowId?: string, headers: Record<string, string> = {}): Promise<{ workflowId: string; runId: string }> {
  const response = await call(api, 'POST', '/workflow', { json: { workflowName, input, ...(workflowId ? { workflowId } : {}) }, headers });
  if (response.status !== 200) throw new Error(`starting ${workflowName} answered ${response.status} ${response.text}`);
  return { workflowId: response.body.workflowId, runId: response.body.runId };
}

/** Runs a workflow to its end through POST /workflow/run. */
export async function runToEnd(api: TestApi, workflowName: string, input: unknown, workflowId?: string): Promise<{ workflowId: string; runId: string; status: string }> {
  const response = await call(api, 'POST', '/workflow/run', { json: { workflowName, input, timeout: 60, ...(workflowId ? { workflowId } : {}) } });
  if (response.status !== 200) throw new Error(`running ${workflowName} answered ${response.status} ${response.text}`);
  return { workflowId: response.body.workflowId, runId: response.body.runId, status: response.body.status };
}

export function waitForRunStatus(api: TestApi, ids: { workflowId: string; runId: string }, predicate: (status: string) => boolean): Promise<any> {
  return waitForStatus(api, `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/status`, predicate, 60_000);
}

/** The page's path for a run, below the UI's root. */
export const runPath = (ids: { workflowId: string; runId: string }): string => `runs/${encodeURIComponent(ids.workflowId)}/${encodeURIComponent(ids.runId)}`;
