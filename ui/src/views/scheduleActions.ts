import type { ScheduleFiresView, ScheduleView } from '../../../core/api/scheduleViews.js';
import { confirmAction } from '../dialogs.js';
import { h } from '../dom.js';
import { allows, missingScheduleActions } from '../keyAccess.js';
import { policyWords } from '../scheduleText.js';
import { answered, type ActionContext } from './runActions.js';

/** What the schedule page does with an action's answer. */
export interface ScheduleActionHandlers {
  /** Pause and unpause answer with the schedule as it now is. */
  changed(schedule: ScheduleView): void;
  /** Trigger answers before the run starts (202): the page reads the schedule again until its run shows. */
  triggered(fires: ScheduleFiresView): void;
}

/**
 * Pause or Unpause (with an optional note) and Trigger now, each confirmed first, for a key with the `control`
 * scope; a key without it gets a line saying so instead. The server's answer to each decides, as for a run's actions.
 */
export function scheduleActionBar(context: ActionContext, schedule: ScheduleView, handlers: ScheduleActionHandlers): HTMLElement {
  const control = allows(context.key, 'control');
  const why = missingScheduleActions(context.key);
  return h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'Schedule actions' },
    control && !schedule.paused ? h('button', { type: 'button', onclick: () => void pause(context, schedule, handlers) }, 'Pause…') : null,
    control && schedule.paused ? h('button', { type: 'button', onclick: () => void unpause(context, schedule, handlers) }, 'Unpause…') : null,
    control ? h('button', { type: 'button', onclick: () => void trigger(context, schedule, handlers) }, 'Trigger now…') : null,
    why ? h('p', { class: 'hint missing-actions' }, why) : null,
  );
}

const NOTE_FIELD = { name: 'note', label: 'Note (optional)', kind: 'text', hint: 'Why: shown with the schedule\'s state.' } as const;

function schedulePath(schedule: ScheduleView): string {
  return `/schedules/${encodeURIComponent(schedule.scheduleId)}`;
}

async function pause(context: ActionContext, schedule: ScheduleView, handlers: ScheduleActionHandlers): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Pause this schedule?',
    message: `Schedule ${schedule.scheduleId} starts no run while paused (Trigger now still does). Fires due while it is paused do not happen later.`,
    confirmLabel: 'Pause schedule',
    fields: [NOTE_FIELD],
  });
  if (!confirmed) return;
  await answered(context, async () => {
    const paused = await context.api.post<ScheduleView>(`${schedulePath(schedule)}/pause`, confirmed.note === undefined ? {} : { note: confirmed.note });
    handlers.changed(paused);
    context.notices.show(`Schedule ${paused.scheduleId} paused.`, 'ok');
  });
}

async function unpause(context: ActionContext, schedule: ScheduleView, handlers: ScheduleActionHandlers): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Unpause this schedule?',
    message: `Schedule ${schedule.scheduleId} fires again from now on; the fires due while it was paused do not happen.`,
    confirmLabel: 'Unpause schedule',
    fields: [NOTE_FIELD],
  });
  if (!confirmed) return;
  await answered(context, async () => {
    const unpaused = await context.api.post<ScheduleView>(`${schedulePath(schedule)}/unpause`, confirmed.note === undefined ? {} : { note: confirmed.note });
    handlers.changed(unpaused);
    context.notices.show(`Schedule ${unpaused.scheduleId} unpaused.`, 'ok');
  });
}

async function trigger(context: ActionContext, schedule: ScheduleView, handlers: ScheduleActionHandlers): Promise<void> {
  const confirmed = await confirmAction({
    title: 'Trigger this schedule now?',
    message: `Starts a run of ${schedule.workflowName} now${schedule.paused ? ', though the schedule is paused' : ''}, under its overlap policy (${policyWords(schedule.policy.overlap)}).`,
    confirmLabel: 'Trigger now',
  });
  if (!confirmed) return;
  await answered(context, async () => {
    const fires = await context.api.post<ScheduleFiresView>(`${schedulePath(schedule)}/trigger`, {});
    handlers.triggered(fires);
    context.notices.show(`Schedule ${fires.scheduleId} triggered: the run it starts shows under Recent actions.`, 'ok');
  });
}
