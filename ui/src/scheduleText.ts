import type { ScheduleSpecView, ScheduleView } from '../../core/api/scheduleViews.js';

/** How the schedule pages put a schedule into words; pure (no DOM), so tests/unit checks it. */

/** When it fires, in one line: its cron expressions (`30 2 * * *; 0 12 * * 1`), or `every 1h, offset 15m`. */
export function specSummary(spec: ScheduleSpecView): string {
  if (spec.cron && spec.cron.length > 0) return spec.cron.join('; ');
  if (spec.every) return spec.offset ? `every ${spec.every}, offset ${spec.offset}` : `every ${spec.every}`;
  return '—';
}

/** `paused` or `active`: a paused schedule fires only when triggered. */
export function scheduleState(schedule: Pick<ScheduleView, 'paused'>): 'paused' | 'active' {
  return schedule.paused ? 'paused' : 'active';
}

/** The newest of its recent actions (the API lists them newest last). */
export function lastAction(schedule: Pick<ScheduleView, 'recentActions'>): ScheduleView['recentActions'][number] | undefined {
  return schedule.recentActions.at(-1);
}

/** `buffer_one` → `buffer one`: the policy's name as words. */
export function policyWords(value: string): string {
  return value.replaceAll('_', ' ');
}
