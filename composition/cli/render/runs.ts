import type { HistoryPage, RunList, RunStatusView, WorkflowList, WorkflowResultV2 } from '../../../adapters/client/index.js';
import { between, duration, fields, prettyJson, shortJson, table } from './text.js';

/** A closed run's result: a status line, then the output (completed) or the error. */
export function renderResult(result: WorkflowResultV2): string {
  const head = `${result.status}  ${result.workflowId}  run ${result.runId ?? '-'}\n`;
  if (result.status === 'completed') return head + prettyJson(result.output);
  if (!result.error) return head;
  const where = result.error.activityType ? ` (in ${result.error.activityType})` : '';
  return `${head}error: ${result.error.name}: ${result.error.message}${where}\n`;
}

export function renderStatus(view: RunStatusView, now: number = Date.now()): string {
  return fields([
    ['workflowId', view.workflowId],
    ['runId', view.runId],
    ['workflow', view.workflowName],
    ['catalog', view.catalog],
    ['status', view.status],
    ['startedAt', view.startedAt],
    ['closedAt', view.closedAt ?? '-'],
    ['duration', `${duration(between(view.startedAt, view.closedAt, now))}${view.closedAt ? '' : ' so far'}`],
    // Only for a run an API key started (docs/security.md, Who did what).
    ...(view.startedBy === undefined ? [] : [['startedBy', view.startedBy] as [string, string]]),
  ]);
}

/** The runs of one page, newest first, and how to get the next page. */
export function renderRunList(list: RunList, now: number = Date.now()): string {
  const more = list.nextPageToken ? `next page: --page-token ${list.nextPageToken}\n` : '';
  // A key limited to some workflows can get an empty page with more after it (docs/api.md): the token still matters.
  if (list.runs.length === 0) return (more ? 'no runs on this page\n' : 'no runs\n') + more;
  const rows = list.runs.map((run) => [
    run.workflowId,
    run.runId,
    run.workflowName,
    run.status,
    run.startedAt,
    duration(between(run.startedAt, run.closedAt, now)),
  ]);
  return table(['WORKFLOW ID', 'RUN ID', 'WORKFLOW', 'STATUS', 'STARTED', 'DURATION'], rows) + more;
}

export function renderWorkflowList(list: WorkflowList): string {
  if (list.workflows.length === 0) return 'no workflows\n';
  return table(['WORKFLOW', 'DESCRIPTION'], list.workflows.map((workflow) => [workflow.name, workflow.description]));
}

/** One page of history: an event a line, with what its attributes say in short. */
export function renderHistoryPage(page: HistoryPage): string {
  const rows = page.events.map((event) => [String(event.eventId), event.time, event.type, event.stepName ?? '', eventDetail(event.attributes)]);
  const head = `${page.workflow.workflowId}  run ${page.workflow.runId}  ${page.workflow.workflowName}  ${page.workflow.status}\n`;
  const more = page.nextPageToken ? `next page: --page-token ${page.nextPageToken}\n` : '';
  return head + table(['ID', 'TIME', 'TYPE', 'STEP', 'DETAIL'], rows) + more;
}

/** The attributes worth a glance: an attempt, an error's message, the rest as short JSON. */
function eventDetail(attributes: Record<string, unknown>): string {
  const { attempt, error, ...rest } = attributes;
  const parts: string[] = [];
  if (typeof attempt === 'number') parts.push(`attempt ${attempt}`);
  if (error && typeof error === 'object') {
    const { name, message } = error as { name?: unknown; message?: unknown };
    parts.push(`${String(name)}: ${String(message)}`);
  }
  if (Object.keys(rest).length > 0) parts.push(shortJson(rest));
  return parts.join('  ');
}
