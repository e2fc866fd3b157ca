import type { KeyDescription, RunRefView, RunStatusView, TerminateView } from '../../../core/api/views.js';
import { allows, missingActions } from '../keyAccess.js';
import { ApiError, runPath, type Api } from '../api.js';
import { confirmAction } from '../dialogs.js';
import { h } from '../dom.js';
import type { Notices } from '../notices.js';
import { rerun } from '../rerun.js';
import { runHref } from '../routes.js';
import type { Router } from '../router.js';

export interface ActionContext {
  api: Api;
  router: Router;
  notices: Notices;
  /** What the key in use may do; undefined while unknown (every action offered, the server decides). */
  key?: KeyDescription | undefined;
}

/**
 * What a user can do to a run, each confirmed first and answered with the API's own words: stop and terminate and
 * feedback while it runs, rerun at any time, reset from a step chosen on the timeline (resetButton). `feedbackHere`
 * false: the run waits for feedback, and the page shows Send feedback beside that (feedbackButton).
 */
export function actionBar(context: ActionContext, run: RunStatusView, options: { feedbackHere?: boolean } = {}): HTMLElement {
  const control = run.status === 'running' && allows(context.key, 'control');
  const why = missingActions(context.key);
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Run actions' },
    control ? h('button', { type: 'button', onclick: () => void stop(context, run) }, 'Stop…') : null,
    control ? h('button', { type: 'button', class: 'danger', onclick: () => void terminate(context, run) }, 'Terminate…') : null,
    control && options.feedbackHere !== false ? feedbackButton(context, run) : null,
    allows(context.key, 'start') ? h('button', { type: 'button', onclick: () => void rerunAction(context, run) }, 'Rerun…') : null,
    why ? h('p', { class: 'hint missing-actions' }, why) : null,
  );
}

/** Send feedback, or nothing for a key without the control scope (the action bar says why). */
export function feedbackButton(context: ActionContext, run: RunStatusView): HTMLButtonElement | null {
  if (!allows(context.key, 'control')) return null;
  return h('button', { type: 'button', onclick: () => void feedback(context, run) }, 'Send feedback…');
}

export function resetButton(context: ActionContext, run: RunStatusView, stepName: string): HTMLElement {
  if (!allows(context.key, 'control')) return h('p', { class: 'hint' }, `A reset needs the "control" scope, which API key "${context.key?.key?.id}" lacks.`);
  return h('button', { type: 'button', onclick: () => void reset(context, run, stepName) }, `Reset to after ${stepName}…`);
}

async function stop(context: ActionContext, run: RunStatusView): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Stop this run?',
    message: `Cancels run ${run.runId} of ${run.workflowId}. Its clean-up code may still run; it ends cancelled.`,
    confirmLabel: 'Stop run',
    danger: true,
  });
  if (!confirmed) return;
  await answered(context, async () => {
    await context.api.patch<RunRefView>(`${runPath(run.workflowId, run.runId)}/stop`);
    context.notices.show(`Stop requested for run ${run.runId}.`, 'ok');
  });
}

async function terminate(context: ActionContext, run: RunStatusView): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Terminate this run?',
    message: `Ends run ${run.runId} of ${run.workflowId} at once: no clean-up code runs.`,
    confirmLabel: 'Terminate run',
    danger: true,
    fields: [{ name: 'reason', label: 'Reason (optional)', kind: 'text' }],
  });
  if (!confirmed) return;
  await answered(context, async () => {
    await context.api.post<TerminateView>(`${runPath(run.workflowId, run.runId)}/terminate`, confirmed.reason === undefined ? {} : { reason: confirmed.reason });
    context.notices.show(`Run ${run.runId} terminated.`, 'ok');
  });
}

async function feedback(context: ActionContext, run: RunStatusView): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Send feedback',
    message: `Delivers a reply to the webhook wait of ${run.workflowId} (kept until the run waits, if it does not yet).`,
    confirmLabel: 'Send feedback',
    fields: [{ name: 'payload', label: 'Payload (JSON object)', kind: 'json', object: true, value: '{}', hint: 'The value the workflow\'s waitForWebhook() returns.' }],
  });
  if (!confirmed) return;
  await answered(context, async () => {
    const delivered = await context.api.post<RunRefView>('/workflow/feedback', { workflowId: run.workflowId, payload: confirmed.payload });
    context.notices.show(`Feedback delivered to run ${delivered.runId}.`, 'ok');
  });
}

async function reset(context: ActionContext, run: RunStatusView, stepName: string): Promise<void> {
  const confirmed = await confirmAction({
    title: `Reset to after ${stepName}?`,
    message: `Starts a new run of ${run.workflowId} that replays everything completed up to the last completion of ${stepName}, then runs the rest again. If the id's latest run is still open, it is terminated.`,
    confirmLabel: 'Reset run',
    fields: [{ name: 'reason', label: 'Reason (optional)', kind: 'text' }],
  });
  if (!confirmed) return;
  await answered(context, async () => {
    const created = await context.api.post<RunRefView>(`${runPath(run.workflowId, run.runId)}/reset`, { stepName, ...(confirmed.reason === undefined ? {} : { reason: confirmed.reason }) });
    context.notices.show(`Reset from ${stepName}: this is the new run ${created.runId}.`, 'ok', { acrossNavigation: true });
    context.router.navigate(runHref(created.workflowId, created.runId));
  });
}

async function rerunAction(context: ActionContext, run: RunStatusView): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Rerun with the same input?',
    message: `Starts a new run of ${run.workflowName} (catalog ${run.catalog}) with this run's input, under a new workflow id.`,
    confirmLabel: 'Start new run',
  });
  if (!confirmed) return;
  await answered(context, async () => {
    const started = await rerun(context.api, run);
    context.notices.show(`Started run ${started.runId} of ${started.workflowId} with the same input.`, 'ok', { acrossNavigation: true });
    context.router.navigate(runHref(started.workflowId, started.runId));
  });
}

/** Runs an action and shows its failure as the API said it; a refusal (403) says so first. */
export async function answered(context: Pick<ActionContext, 'notices'>, action: () => Promise<void>): Promise<void> {
  try {
    await action();
  } catch (error) {
    // A refusal (403) is the server's own sentence naming the scope or limit the key lacks.
    const said = error instanceof ApiError ? error.describe() : String(error);
    context.notices.show(error instanceof ApiError && error.status === 403 ? `Refused: ${said}` : said, 'error');
  }
}
