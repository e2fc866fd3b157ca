import type { RunListView, RunStatusView, WorkflowListView } from '../../../core/api/views.js';
import { RUN_STATUSES } from '../../../core/domain/status.js';
import { ApiError } from '../api.js';
import { h, replaceChildren } from '../dom.js';
import { formatDuration, formatTime, statusLabel } from '../format.js';
import { runHref, runsHref, scheduleHref } from '../routes.js';
import { labelled, textInput } from './fields.js';
import type { Page, PageEnv } from './page.js';
import { PageCursor } from '../pageCursor.js';
import { runIdText } from './runId.js';

const PAGE_SIZES = [10, 25, 100, 500, 1000];
const DEFAULT_PAGE_SIZE = 100;
const REFRESH_MS = 3000;

interface Filters {
  workflowName: string;
  status: string;
  catalog: string;
  /** Only the runs of one schedule (the schedule page links here); no field of its own, a line says it and clears it. */
  scheduleId: string;
  limit: number;
}

/**
 * The runs list: the filters of GET /workflow/runs (kept in the page's URL), paging by the API's page tokens, a live
 * refresh of the page shown, and a quick filter over the loaded rows. Each run links to its page.
 */
export function runsListPage(env: PageEnv, query: URLSearchParams): Page {
  const { api, router } = env;
  const filters = filtersOf(query);
  const cursor = new PageCursor();
  let loading = false;
  let rows: { key: string; text: string; row: HTMLTableRowElement }[] = [];

  const title = h('h1', { tabindex: -1 }, 'Runs');
  const workflowInput = textInput({ name: 'workflowName', list: 'workflow-names', value: filters.workflowName });
  const names = h('datalist', { id: 'workflow-names' });
  const statusSelect = h('select', { name: 'status' }, h('option', { value: '' }, 'any'), ...RUN_STATUSES.map((status) => h('option', { value: status }, statusLabel(status))));
  statusSelect.value = filters.status;
  const catalogInput = textInput({ name: 'catalog', placeholder: 'default', value: filters.catalog });
  const limitSelect = h('select', { name: 'limit' }, ...PAGE_SIZES.map((size) => h('option', { value: size }, String(size))));
  limitSelect.value = String(filters.limit);
  const live = h('input', { type: 'checkbox', name: 'live', checked: true });
  const quickFilter = h('input', { type: 'search', name: 'quick', autocomplete: 'off', placeholder: 'id, workflow or status' });
  const summary = h('p', { class: 'summary', role: 'status' });
  const scheduleFilter = h('p', { class: 'schedule-filter' });
  const body = h('tbody');
  const newer = h('button', { type: 'button', class: 'secondary', disabled: true }, '← Newer');
  const older = h('button', { type: 'button', class: 'secondary', disabled: true }, 'Older →');

  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Run filters' },
    labelled('Workflow', workflowInput),
    names,
    labelled('Status', statusSelect),
    labelled('Catalog', catalogInput),
    labelled('Page size', limitSelect),
    h('button', { type: 'submit' }, 'Apply filters'),
  );
  const element = h(
    'section',
    { class: 'runs' },
    h('div', { class: 'title-row' }, title, router.link('start', { class: 'button-link' }, 'Start a run')),
    form,
    h('div', { class: 'list-tools' }, labelled('Quick filter', quickFilter), h('label', { class: 'inline' }, live, ' Live refresh')),
    scheduleFilter,
    summary,
    h(
      'div',
      { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'Runs, newest first' },
      h(
        'table',
        { class: 'runs-table' },
        h('caption', { class: 'visually-hidden' }, 'Runs, newest first'),
        h('thead', {}, h('tr', {}, ...['Workflow id', 'Run', 'Workflow', 'Catalog', 'Status', 'Started', 'Duration', 'Started by'].map((name) => h('th', { scope: 'col' }, name)))),
        body,
      ),
    ),
    h('nav', { class: 'pager', 'aria-label': 'Pages' }, newer, older),
  );

  const applyQuickFilter = () => {
    const started = performance.now();
    const needle = quickFilter.value.trim().toLowerCase();
    let shown = 0;
    for (const entry of rows) {
      const visible = needle === '' || entry.text.includes(needle);
      entry.row.hidden = !visible;
      if (visible) shown += 1;
    }
    describeList(shown);
    performance.measure('flowgate:runs-filter', { start: started, end: performance.now() });
  };

  const describeList = (shown: number) => {
    const filtered = shown === rows.length ? '' : ` (${shown} match the quick filter)`;
    summary.textContent = rows.length === 0 ? 'No runs match these filters.' : `${rows.length} runs on this page${filtered}. Updated ${new Date().toLocaleTimeString()}.`;
  };

  const render = (runs: readonly RunStatusView[]) => {
    const started = performance.now();
    const focusedKey = (document.activeElement as HTMLElement | null)?.dataset?.runKey;
    const fragment = document.createDocumentFragment();
    const now = Date.now();
    rows = runs.map((run) => {
      // The run's own address names it once (both ids percent-encoded) and, unlike a NUL-joined key, survives
      // CSS.escape (which turns NUL into U+FFFD), so the link focused before a refresh is found again after it.
      const key = runHref(run.workflowId, run.runId);
      const end = run.closedAt ? Date.parse(run.closedAt) : now;
      const row = h(
        'tr',
        { 'data-status': run.status },
        h('td', {}, router.link(key, { 'data-run-key': key }, run.workflowId)),
        h('td', {}, runIdText(run.runId)),
        h('td', {}, run.workflowName, run.scheduleId ? h('span', { class: 'hint schedule-of-run' }, ' schedule ', router.link(scheduleHref(run.scheduleId), {}, run.scheduleId)) : null),
        h('td', {}, run.catalog),
        h('td', {}, h('span', { class: `badge status-${run.status}` }, statusLabel(run.status))),
        h('td', {}, formatTime(run.startedAt)),
        h('td', {}, formatDuration(end - Date.parse(run.startedAt))),
        h('td', {}, run.startedBy ?? ''),
      );
      fragment.append(row);
      return { key, row, text: `${run.workflowId} ${run.runId} ${run.workflowName} ${run.catalog} ${run.status} ${run.startedBy ?? ''} ${run.scheduleId ?? ''}`.toLowerCase() };
    });
    body.replaceChildren(fragment);
    if (focusedKey) (body.querySelector(`[data-run-key="${CSS.escape(focusedKey)}"]`) as HTMLElement | null)?.focus();
    applyQuickFilter();
    performance.measure('flowgate:runs-render', { start: started, end: performance.now() });
  };

  /** A user's load always goes out (an older answer arriving later is dropped); a refresh only when none is running. */
  let generation = 0;
  let shownSignature = '';
  const load = async (refresh = false) => {
    if (refresh && loading) return;
    generation += 1;
    const mine = generation;
    loading = true;
    try {
      const page = await api.get<RunListView>('/workflow/runs', {
        workflowName: filters.workflowName,
        status: filters.status,
        catalog: filters.catalog,
        scheduleId: filters.scheduleId,
        limit: filters.limit,
        pageToken: cursor.current,
      });
      if (mine !== generation) return;
      cursor.received(page.nextPageToken);
      // A refresh that changed nothing leaves the rows alone (a thousand rows cost ~0.1 s to build again), unless
      // a running run's duration has moved on.
      const signature = `${cursor.current ?? ''}\n${JSON.stringify(page.runs)}`;
      if (refresh && signature === shownSignature && !page.runs.some((run) => run.status === 'running')) {
        describeList(rows.filter((entry) => !entry.row.hidden).length);
        return;
      }
      shownSignature = signature;
      render(page.runs);
    } catch (error) {
      if (mine === generation) env.notices.show(error instanceof ApiError ? error.describe() : String(error), 'error');
    } finally {
      if (mine === generation) {
        loading = false;
        newer.disabled = !cursor.hasPrevious;
        older.disabled = !cursor.hasNext;
      }
    }
  };

  const loadNames = async () => {
    try {
      const catalog = await api.get<WorkflowListView>('/workflow/list', { catalog: filters.catalog });
      replaceChildren(names, ...catalog.workflows.map((workflow) => h('option', { value: workflow.name }, workflow.description)));
    } catch {
      // Suggestions only: an unknown catalog is reported by the list itself.
    }
  };

  const showScheduleFilter = () => {
    if (!filters.scheduleId) {
      replaceChildren(scheduleFilter);
      return;
    }
    const clear = h('button', { type: 'button', class: 'secondary small' }, 'Clear the schedule filter');
    clear.addEventListener('click', () => {
      filters.scheduleId = '';
      form.requestSubmit();
    });
    replaceChildren(scheduleFilter, 'Only the runs of schedule ', router.link(scheduleHref(filters.scheduleId), {}, filters.scheduleId), '. ', clear);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    filters.workflowName = workflowInput.value.trim();
    filters.status = statusSelect.value;
    filters.catalog = catalogInput.value.trim();
    filters.limit = Number(limitSelect.value);
    cursor.reset();
    router.replaceQuietly(runsHref(queryOf(filters)));
    showScheduleFilter();
    void load();
    void loadNames();
  });
  for (const select of [statusSelect, limitSelect]) select.addEventListener('change', () => form.requestSubmit());
  quickFilter.addEventListener('input', applyQuickFilter);
  older.addEventListener('click', () => {
    if (cursor.forward()) void load();
  });
  newer.addEventListener('click', () => {
    if (cursor.back()) void load();
  });
  const refresher = setInterval(() => {
    if (live.checked && !document.hidden) void load(true);
  }, REFRESH_MS);

  showScheduleFilter();
  void load();
  void loadNames();
  return { element, focusTarget: title, destroy: () => clearInterval(refresher) };
}

function filtersOf(query: URLSearchParams): Filters {
  const limit = Number(query.get('limit'));
  return {
    workflowName: query.get('workflowName') ?? '',
    status: query.get('status') ?? '',
    catalog: query.get('catalog') ?? '',
    scheduleId: query.get('scheduleId') ?? '',
    limit: PAGE_SIZES.includes(limit) ? limit : DEFAULT_PAGE_SIZE,
  };
}

function queryOf(filters: Filters): URLSearchParams {
  const query = new URLSearchParams();
  if (filters.workflowName) query.set('workflowName', filters.workflowName);
  if (filters.status) query.set('status', filters.status);
  if (filters.catalog) query.set('catalog', filters.catalog);
  if (filters.scheduleId) query.set('scheduleId', filters.scheduleId);
  if (filters.limit !== DEFAULT_PAGE_SIZE) query.set('limit', String(filters.limit));
  return query;
}
