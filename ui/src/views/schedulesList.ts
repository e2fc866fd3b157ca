import type { ScheduleListView, ScheduleView } from '../../../core/api/scheduleViews.js';
import type { WorkflowListView } from '../../../core/api/views.js';
import { ApiError } from '../api.js';
import { h, replaceChildren } from '../dom.js';
import { formatTime } from '../format.js';
import { runHref, scheduleHref, schedulesHref } from '../routes.js';
import { lastAction, scheduleState, specSummary } from '../scheduleText.js';
import { labelled, textInput } from './fields.js';
import { PageCursor } from '../pageCursor.js';
import type { Page, PageEnv } from './page.js';

const PAGE_SIZES = [10, 25, 100, 500, 1000];
const DEFAULT_PAGE_SIZE = 100;
/** Next fire times move on while the page is open; a schedule created elsewhere shows up within this. */
const REFRESH_MS = 5000;

interface Filters {
  workflowName: string;
  limit: number;
}

/**
 * The schedules list (GET /schedules, by id): when each fires, whether it is paused, its next fire and its last run.
 * Paging by the API's page tokens; the page shown is read again every few seconds while the tab is visible.
 */
export function schedulesListPage(env: PageEnv, query: URLSearchParams): Page {
  const { api, router } = env;
  const filters = filtersOf(query);
  const cursor = new PageCursor();
  let loading = false;
  let shownSignature = '';

  const title = h('h1', { tabindex: -1 }, 'Schedules');
  const workflowInput = textInput({ name: 'workflowName', list: 'schedule-workflow-names', value: filters.workflowName });
  const names = h('datalist', { id: 'schedule-workflow-names' });
  const limitSelect = h('select', { name: 'limit' }, ...PAGE_SIZES.map((size) => h('option', { value: size }, String(size))));
  limitSelect.value = String(filters.limit);
  const summary = h('p', { class: 'summary', role: 'status' });
  const body = h('tbody');
  const previous = h('button', { type: 'button', class: 'secondary', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Next →');

  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Schedule filters' },
    labelled('Workflow', workflowInput),
    names,
    labelled('Page size', limitSelect),
    h('button', { type: 'submit' }, 'Apply filters'),
  );
  const element = h(
    'section',
    { class: 'schedules' },
    h('div', { class: 'title-row' }, title),
    h('p', { class: 'hint' }, 'Schedules start a workflow on a calendar or an interval; they are created through the API (POST /schedules).'),
    form,
    summary,
    h(
      'div',
      { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Schedules, by id' },
      h(
        'table',
        { class: 'schedules-table' },
        h('caption', { class: 'visually-hidden' }, 'Schedules, by id'),
        h('thead', {}, h('tr', {}, ...['Schedule', 'Workflow', 'When', 'Time zone', 'State', 'Next fire', 'Last run', 'Runs started'].map((name) => h('th', { scope: 'col' }, name)))),
        body,
      ),
    ),
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, previous, next),
  );

  const render = (schedules: readonly ScheduleView[]) => {
    const focusedKey = (document.activeElement as HTMLElement | null)?.dataset?.focusKey;
    const fragment = document.createDocumentFragment();
    for (const schedule of schedules) fragment.append(scheduleRow(env, schedule));
    body.replaceChildren(fragment);
    if (focusedKey) (body.querySelector(`[data-focus-key="${CSS.escape(focusedKey)}"]`) as HTMLElement | null)?.focus();
    summary.textContent = schedules.length === 0 ? 'No schedules match these filters.' : `${schedules.length} ${schedules.length === 1 ? 'schedule' : 'schedules'} on this page. Updated ${new Date().toLocaleTimeString()}.`;
  };

  /** A user's load always goes out (an older answer arriving later is dropped); a refresh only when none is running. */
  let generation = 0;
  const load = async (refresh = false) => {
    if (refresh && loading) return;
    generation += 1;
    const mine = generation;
    loading = true;
    try {
      const page = await api.get<ScheduleListView>('/schedules', { workflowName: filters.workflowName, limit: filters.limit, pageToken: cursor.current });
      if (mine !== generation) return;
      cursor.received(page.nextPageToken);
      const signature = `${cursor.current ?? ''}\n${JSON.stringify(page.schedules)}`;
      if (refresh && signature === shownSignature) return;
      shownSignature = signature;
      render(page.schedules);
    } catch (error) {
      // A refresh that fails says nothing: the first load said why, and a message shown again every few seconds
      // would come back each time it is dismissed.
      if (mine === generation && !refresh) env.notices.show(error instanceof ApiError ? error.describe() : String(error), 'error');
    } finally {
      if (mine === generation) {
        loading = false;
        previous.disabled = !cursor.hasPrevious;
        next.disabled = !cursor.hasNext;
      }
    }
  };

  const loadNames = async () => {
    try {
      const catalog = await api.get<WorkflowListView>('/workflow/list');
      replaceChildren(names, ...catalog.workflows.map((workflow) => h('option', { value: workflow.name }, workflow.description)));
    } catch {
      // Suggestions only.
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    filters.workflowName = workflowInput.value.trim();
    filters.limit = Number(limitSelect.value);
    cursor.reset();
    router.replaceQuietly(schedulesHref(queryOf(filters)));
    void load();
  });
  limitSelect.addEventListener('change', () => form.requestSubmit());
  next.addEventListener('click', () => {
    if (cursor.forward()) void load();
  });
  previous.addEventListener('click', () => {
    if (cursor.back()) void load();
  });
  const refresher = setInterval(() => {
    if (!document.hidden) void load(true);
  }, REFRESH_MS);

  void load();
  void loadNames();
  return { element, focusTarget: title, destroy: () => clearInterval(refresher) };
}

function scheduleRow(env: PageEnv, schedule: ScheduleView): HTMLTableRowElement {
  const { router } = env;
  const state = scheduleState(schedule);
  const last = lastAction(schedule);
  const href = scheduleHref(schedule.scheduleId);
  return h(
    'tr',
    { 'data-state': state },
    h('td', {}, router.link(href, { 'data-focus-key': href }, schedule.scheduleId)),
    h('td', {}, schedule.workflowName),
    h('td', {}, h('code', {}, specSummary(schedule.spec))),
    h('td', {}, schedule.spec.timezone),
    h('td', {}, h('span', { class: `badge schedule-${state}` }, state)),
    h('td', {}, schedule.nextFireTimes[0] ? formatTime(schedule.nextFireTimes[0]) : '—'),
    h('td', {}, last ? router.link(runHref(last.workflowId, last.runId), { 'data-focus-key': runHref(last.workflowId, last.runId) }, formatTime(last.startedAt)) : '—'),
    h('td', {}, String(schedule.actionCount)),
  );
}

function filtersOf(query: URLSearchParams): Filters {
  const limit = Number(query.get('limit'));
  return { workflowName: query.get('workflowName') ?? '', limit: PAGE_SIZES.includes(limit) ? limit : DEFAULT_PAGE_SIZE };
}

function queryOf(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.workflowName) query.set('workflowName', filters.workflowName);
  if (filters.limit !== DEFAULT_PAGE_SIZE) query.set('limit', String(filters.limit));
  return query;
}
