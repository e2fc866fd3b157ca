import type { ScheduleView } from '../../../core/api/scheduleViews.js';
import { ApiError } from '../api.js';
import { h, replaceChildren } from '../dom.js';
import { formatDuration, formatTime } from '../format.js';
import { runHref, runsHref } from '../routes.js';
import { policyWords, scheduleState, specSummary } from '../scheduleText.js';
import { jsonDetails } from './jsonView.js';
import type { Page, PageEnv } from './page.js';
import type { ActionContext } from './runActions.js';
import { scheduleActionBar } from './scheduleActions.js';
import { runIdText } from './runId.js';

/** Next fire times move on, and runs start, while the page is open. */
const REFRESH_MS = 5000;
/** After Trigger now: how often, and how many times, to read the schedule until the fire shows in its counts. */
const AFTER_TRIGGER_MS = 1000;
const AFTER_TRIGGER_TRIES = 15;

/**
 * One schedule (GET /schedules/{id}): when it fires and its policy, its next fire times, the runs it started lately
 * and those still open, and Pause / Unpause / Trigger now for a key that may (docs/ui.md).
 */
export function schedulePage(env: PageEnv, scheduleId: string): Page {
  const { api, router, notices } = env;
  const path = `/schedules/${encodeURIComponent(scheduleId)}`;
  let schedule: ScheduleView | undefined;
  const context: ActionContext = { api, router, notices };
  let keyKnown = false;

  const title = h('h1', { tabindex: -1 }, scheduleId);
  const badge = h('span', { class: 'badge' });
  const note = h('span', { class: 'schedule-note' });
  const facts = h('dl', { class: 'facts' });
  const controls = h('div');
  const nextFires = h('div');
  const recent = h('div');
  const running = h('div');
  const input = h('div');
  /** What each part was last drawn from: drawn again only when it changes, so focus and open details stay put. */
  let drawnData = '';
  let drawnControls = '';
  let drawnInput = '';

  const element = h(
    'article',
    { class: 'schedule' },
    h('p', { class: 'breadcrumb' }, router.link('schedules', {}, 'Schedules'), ' › schedule'),
    title,
    h('div', { class: 'status-line' }, badge, note),
    facts,
    controls,
    h('section', { 'aria-labelledby': 'next-fires-title' }, h('h2', { id: 'next-fires-title' }, 'Next fire times'), nextFires),
    h('section', { 'aria-labelledby': 'recent-actions-title' }, h('h2', { id: 'recent-actions-title' }, 'Recent actions'), recent),
    h('section', { 'aria-labelledby': 'running-runs-title' }, h('h2', { id: 'running-runs-title' }, 'Running runs'), running),
    h('section', { 'aria-labelledby': 'schedule-input-title' }, h('h2', { id: 'schedule-input-title' }, 'Input'), input),
  );

  const render = () => {
    if (!schedule) return;
    renderControls();
    const inputOf = JSON.stringify(schedule.input) ?? '';
    if (inputOf !== drawnInput) {
      drawnInput = inputOf;
      replaceChildren(input, jsonDetails('Input of every run', schedule.input, { open: true }));
    }
    const dataOf = JSON.stringify(schedule);
    if (dataOf === drawnData) return;
    drawnData = dataOf;
    const focusedKey = (document.activeElement as HTMLElement | null)?.dataset?.focusKey;
    const state = scheduleState(schedule);
    badge.className = `badge schedule-${state}`;
    badge.textContent = state;
    note.textContent = schedule.note;
    replaceChildren(facts, ...factsOf(env, schedule));
    replaceChildren(nextFires, nextFiresOf(schedule));
    replaceChildren(recent, recentActionsOf(env, schedule));
    replaceChildren(running, runningRunsOf(env, schedule));
    if (focusedKey) (element.querySelector(`[data-focus-key="${CSS.escape(focusedKey)}"]`) as HTMLElement | null)?.focus();
  };

  const renderControls = () => {
    if (!schedule) return;
    const controlsOf = `${schedule.paused}|${keyKnown}`;
    if (controlsOf === drawnControls) return;
    drawnControls = controlsOf;
    replaceChildren(
      controls,
      scheduleActionBar(context, schedule, {
        changed: (answer) => {
          changes += 1;
          schedule = answer;
          render();
        },
        triggered: () => followTrigger(),
      }),
    );
  };

  /** Set when the user has left the page: a read answered after that starts no timer and reports nothing. */
  let destroyed = false;
  let loading = false;
  /** Counts the answers of the page's own actions: a read that went out before one is older than it, and dropped. */
  let changes = 0;
  let lastRefreshError = '';
  const load = async (): Promise<void> => {
    if (loading) return;
    loading = true;
    const changesBefore = changes;
    try {
      const answer = await api.get<ScheduleView>(path);
      if (changes !== changesBefore) return;
      schedule = answer;
      lastRefreshError = '';
      render();
    } catch (error) {
      // Said once: a refresh failing again every few seconds would bring the message back each time it is dismissed.
      const said = describe(error);
      if (said !== lastRefreshError && !destroyed) notices.show(said, 'error');
      lastRefreshError = said;
    } finally {
      loading = false;
    }
  };

  let followTimer: ReturnType<typeof setTimeout> | undefined;
  /** The trigger's fire starts its run in a moment: read the schedule again until its counts move (or give up). */
  const followTrigger = () => {
    clearTimeout(followTimer);
    const before = schedule ? `${schedule.actionCount}|${schedule.missedCount}` : '';
    let tries = 0;
    const tick = async () => {
      tries += 1;
      await load();
      if (destroyed) return;
      const now = schedule ? `${schedule.actionCount}|${schedule.missedCount}` : '';
      if (now === before && tries < AFTER_TRIGGER_TRIES) followTimer = setTimeout(() => void tick(), AFTER_TRIGGER_MS);
    };
    followTimer = setTimeout(() => void tick(), AFTER_TRIGGER_MS);
  };

  // The actions the key may take; drawn again once known (until then every action shows, and the server decides).
  void env.access.describe().then((key) => {
    context.key = key;
    keyKnown = true;
    renderControls();
  });

  let refresher: ReturnType<typeof setInterval> | undefined;
  const start = async () => {
    try {
      schedule = await api.get<ScheduleView>(path);
    } catch (error) {
      if (destroyed) return;
      replaceChildren(element, h('h1', { tabindex: -1 }, scheduleId), h('p', { role: 'alert', class: 'notice error' }, describe(error)), router.link('schedules', {}, 'Back to the schedules'));
      return;
    }
    if (destroyed) return;
    render();
    refresher = setInterval(() => {
      if (!document.hidden) void load();
    }, REFRESH_MS);
  };
  void start();

  return {
    element,
    focusTarget: title,
    destroy() {
      destroyed = true;
      clearInterval(refresher);
      clearTimeout(followTimer);
    },
  };
}

function factsOf(env: PageEnv, schedule: ScheduleView): HTMLElement[] {
  const { router } = env;
  const { spec, policy } = schedule;
  const runsOfSchedule = runsHref(new URLSearchParams({ scheduleId: schedule.scheduleId }));
  return [
    fact('Workflow', router.link(runsHref(new URLSearchParams({ workflowName: schedule.workflowName })), {}, schedule.workflowName)),
    fact('Catalog', schedule.catalog),
    fact('When', h('code', {}, specSummary(spec)), 'spec-fact'),
    fact('Time zone', spec.timezone),
    ...(spec.startAt ? [fact('Not before', formatTime(spec.startAt))] : []),
    ...(spec.endAt ? [fact('Not after', formatTime(spec.endAt))] : []),
    ...(spec.jitterSeconds > 0 ? [fact('Jitter', `up to ${formatDuration(spec.jitterSeconds * 1000)}`)] : []),
    fact('Overlap', policyWords(policy.overlap)),
    fact('Catch-up window', formatDuration(policy.catchupWindowSeconds * 1000)),
    fact('Pause on failure', policy.pauseOnFailure ? 'yes' : 'no'),
    fact('Runs started', h('span', {}, String(schedule.actionCount), ' · ', router.link(runsOfSchedule, { 'data-focus-key': runsOfSchedule }, 'see them')), 'action-count-fact'),
    fact('Missed fires', String(schedule.missedCount), 'missed-count-fact'),
    fact('Created', formatTime(schedule.createdAt)),
    ...(schedule.createdBy === undefined ? [] : [fact('Created by', schedule.createdBy, 'created-by-fact')]),
    fact('Changed', formatTime(schedule.updatedAt)),
    ...(schedule.updatedBy === undefined ? [] : [fact('Changed by', schedule.updatedBy, 'updated-by-fact')]),
  ];
}

function nextFiresOf(schedule: ScheduleView): HTMLElement {
  if (schedule.nextFireTimes.length === 0) {
    return h('p', { class: 'hint next-fires-none' }, schedule.paused ? 'None while the schedule is paused.' : 'None: the schedule fires no more (its spec has ended).');
  }
  return h('ol', { class: 'next-fires' }, ...schedule.nextFireTimes.map((time) => h('li', {}, h('time', { datetime: time }, formatTime(time)))));
}

function recentActionsOf(env: PageEnv, schedule: ScheduleView): HTMLElement {
  if (schedule.recentActions.length === 0) return h('p', { class: 'hint' }, 'No run started yet.');
  const newestFirst = [...schedule.recentActions].reverse();
  return h(
    'div',
    { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Recent actions, newest first' },
    h(
      'table',
      { class: 'recent-actions' },
      h('caption', { class: 'visually-hidden' }, 'Recent actions, newest first'),
      h('thead', {}, h('tr', {}, ...['Scheduled at', 'Started at', 'Workflow id', 'Run'].map((name) => h('th', { scope: 'col' }, name)))),
      h(
        'tbody',
        {},
        ...newestFirst.map((action) => {
          const href = runHref(action.workflowId, action.runId);
          return h(
            'tr',
            {},
            h('td', {}, formatTime(action.scheduledAt)),
            h('td', {}, formatTime(action.startedAt)),
            h('td', {}, env.router.link(href, { 'data-focus-key': href }, action.workflowId)),
            h('td', {}, runIdText(action.runId)),
          );
        }),
      ),
    ),
  );
}

function runningRunsOf(env: PageEnv, schedule: ScheduleView): HTMLElement {
  if (schedule.runningRuns.length === 0) return h('p', { class: 'hint' }, 'None.');
  return h(
    'ul',
    { class: 'running-runs' },
    ...schedule.runningRuns.map((run) => {
      const href = runHref(run.workflowId, run.runId);
      return h('li', {}, env.router.link(href, { 'data-focus-key': `running:${href}` }, run.workflowId));
    }),
  );
}

function fact(term: string, value: Node | string, className?: string): HTMLElement {
  return h('div', { class: className }, h('dt', {}, term), h('dd', {}, value));
}

function describe(error: unknown): string {
  return error instanceof ApiError ? error.describe() : error instanceof Error ? error.message : String(error);
}
