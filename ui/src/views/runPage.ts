import type { InputView, RunStatusView, TraceLogView, WorkflowResultV2 } from '../../../core/api/views.js';
import type { HistoryEvent } from '../../../core/domain/history.js';
import type { ProgressEvent } from '../../../core/domain/progress.js';
import type { SerializedFailure } from '../../../core/domain/run.js';
import { ApiError, runPath } from '../api.js';
import { h, replaceChildren } from '../dom.js';
import type { FeedbackWait } from '../../../core/domain/feedbackWaits.js';
import { formatDuration, formatTime, statusLabel } from '../format.js';
import { followHistory, type ConnectionState } from '../historyFollower.js';
import { runHref, scheduleHref } from '../routes.js';
import { buildTimeline, currentWait, timelineSpan, type TimelineRow } from '../timelineModel.js';
import { HistoryTable } from './historyTable.js';
import { jsonDetails } from './jsonView.js';
import type { Page, PageEnv } from './page.js';
import { relatedRuns } from './relatedRuns.js';
import { actionBar, feedbackButton, resetButton, type ActionContext } from './runActions.js';
import { copyableRunId } from './runId.js';
import { TimelineView } from './timeline.js';

const CONNECTION_WORDS: Record<ConnectionState, string> = {
  connecting: 'connecting to the history stream…',
  live: 'live',
  reconnecting: 'connection lost; reconnecting…',
  ended: '',
  failed: 'history stream failed',
};

/** One run: status, times, input and output, error, the live history and its timeline, related runs, actions. */
export function runPage(env: PageEnv, workflowId: string, runId: string): Page {
  const { api, router, notices } = env;
  let status: RunStatusView | undefined;
  let input: { value: unknown } | undefined;
  let result: WorkflowResultV2 | undefined;
  let trace: TraceLogView['data'];
  let traceNote = '';
  const events: HistoryEvent[] = [];
  const progress: ProgressEvent[] = [];
  let selected: TimelineRow | undefined;
  let frame = 0;
  let follower: { stop(): void } | undefined;
  /** Set when the user has left the page: an answer awaited before that must then draw and open nothing. */
  let destroyed = false;

  const title = h('h1', { tabindex: -1 }, workflowId);
  const badge = h('span', { class: 'badge' });
  const connection = h('span', { class: 'connection', role: 'status' });
  const facts = h('dl', { class: 'facts' });
  const duration = h('span');
  const actions = h('div');
  /** The wait for feedback the open run is in, with Send feedback beside it (hidden while it waits for none). */
  let waiting: FeedbackWait | undefined;
  const waitingSince = h('p', { role: 'status' });
  const waitingFor = h('span', { class: 'hint' });
  const waitingAction = h('span');
  const waitingBox = h('div', { class: 'waiting-for-feedback', hidden: true }, waitingSince, waitingFor, waitingAction);
  /** What the facts and the actions were last drawn from: drawn again only when it changes, so focus stays put. */
  let drawnFacts = '';
  let drawnActions = '';
  const related = h('nav', { class: 'related', 'aria-label': 'Related runs' });
  const errorBox = h('div');
  const io = h('div', { class: 'io' });
  const stepDetails = h('div', { class: 'step-details', 'aria-live': 'polite' });
  const historyCount = h('p', { class: 'hint' });
  const history = new HistoryTable(() => (status ? Date.parse(status.startedAt) : 0));
  const context: ActionContext = { api, router, notices };
  // The actions the key may take; drawn again once known (until then every action shows, and the server decides).
  void env.access.describe().then((key) => {
    context.key = key;
    drawnActions = '';
    renderActions();
    renderStepDetails();
  });
  const timeline = new TimelineView({
    router,
    onSelect: (row) => {
      selected = row;
      renderStepDetails();
    },
  });

  const element = h(
    'article',
    { class: 'run' },
    h('p', { class: 'breadcrumb' }, router.link('runs', {}, 'Runs'), ' › run'),
    title,
    h('div', { class: 'status-line' }, badge, connection),
    waitingBox,
    facts,
    actions,
    related,
    errorBox,
    h('section', { 'aria-labelledby': 'io-title' }, h('h2', { id: 'io-title' }, 'Input and output'), io),
    h(
      'section',
      { 'aria-labelledby': 'timeline-title' },
      h('h2', { id: 'timeline-title' }, 'Timeline'),
      h('p', { class: 'hint' }, 'A bar per attempt. Choose a step to see its input and output, or to reset the run to after it.'),
      timeline.element,
      stepDetails,
    ),
    h('section', { 'aria-labelledby': 'history-title' }, h('h2', { id: 'history-title' }, 'History'), historyCount, history.element),
  );

  const renderHeader = () => {
    if (!status) return;
    document.title = `${status.workflowId} · ${status.workflowName} · flowgate`;
    badge.className = `badge status-${status.status}`;
    badge.textContent = statusLabel(status.status);
    const end = status.closedAt ? Date.parse(status.closedAt) : Date.now();
    duration.textContent = formatDuration(end - Date.parse(status.startedAt));
    const factsOf = JSON.stringify(status);
    if (factsOf !== drawnFacts) {
      drawnFacts = factsOf;
      replaceChildren(
        facts,
        fact('Run', copyableRunId(status.runId), 'run-fact'),
        fact('Workflow', router.link(`runs?workflowName=${encodeURIComponent(status.workflowName)}`, {}, status.workflowName)),
        fact('Catalog', status.catalog),
        fact('Started', formatTime(status.startedAt)),
        ...(status.startedBy === undefined ? [] : [fact('Started by', status.startedBy, 'started-by-fact')]),
        fact('Closed', status.closedAt ? formatTime(status.closedAt) : 'still running'),
        fact('Duration', duration),
        ...(status.scheduleId ? [fact('Schedule', router.link(scheduleHref(status.scheduleId), {}, status.scheduleId), 'schedule-fact')] : []),
        ...(status.rerunOf ? [fact('Rerun of', router.link(runHref(status.rerunOf.workflowId, status.rerunOf.runId), {}, `${status.rerunOf.workflowId} · ${status.rerunOf.runId}`))] : []),
      );
    }
    renderActions();
    renderWaiting(Date.now());
  };

  /** The actions, with Send feedback beside the wait while the run waits for feedback, in the bar otherwise. */
  const renderActions = () => {
    if (!status) return;
    const open = status.status === 'running' ? waiting : undefined;
    const actionsOf = `${factsOfActions(status)}|${open?.eventId ?? ''}`;
    if (actionsOf === drawnActions) return;
    drawnActions = actionsOf;
    replaceChildren(actions, actionBar(context, status, { feedbackHere: open === undefined }));
    replaceChildren(waitingAction, open ? feedbackButton(context, status) : null);
  };

  const renderWaiting = (now: number) => {
    const open = status?.status === 'running' ? waiting : undefined;
    waitingBox.hidden = open === undefined;
    if (!open) return;
    const since = `Waiting for feedback since ${formatTime(open.startedAt)}.`;
    if (waitingSince.textContent !== since) waitingSince.textContent = since;
    const limit = open.timeoutMs === undefined ? '' : `; gives up after ${formatDuration(open.timeoutMs)}`;
    waitingFor.textContent = `For ${formatDuration(now - Date.parse(open.startedAt))} so far${limit}.`;
  };

  const renderIo = () => {
    replaceChildren(
      io,
      input ? jsonDetails('Input', input.value, { open: true }) : h('p', {}, 'Loading the input…'),
      result?.status === 'completed' ? jsonDetails('Output', result.output, { open: true }) : h('p', { class: 'hint' }, outputNote(status, result)),
      trace ? jsonDetails('Trace', trace) : traceNote ? h('p', { class: 'hint' }, traceNote) : null,
    );
    replaceChildren(errorBox, result?.error ? errorSection(result.error) : null);
  };

  const renderTimeline = () => {
    frame = 0;
    if (!status) return;
    const now = Date.now();
    const rows = buildTimeline(events, progress, trace?.steps ?? []);
    waiting = currentWait(rows, now);
    renderActions();
    renderWaiting(now);
    const start = Date.parse(status.startedAt);
    const end = status.closedAt ? Date.parse(status.closedAt) : now;
    timeline.render(rows, timelineSpan(rows, start, end), status.closedAt ? end : now, status.status !== 'running');
    if (selected) {
      selected = rows.find((row) => row.key === selected?.key);
      renderStepDetails();
    }
    replaceChildren(related, ...relatedRuns(router, workflowId, events));
  };
  const scheduleTimeline = () => {
    if (frame === 0) frame = requestAnimationFrame(renderTimeline);
  };

  const renderStepDetails = () => {
    if (!selected || !status) {
      replaceChildren(stepDetails);
      return;
    }
    const canReset = selected.state === 'completed';
    replaceChildren(
      stepDetails,
      h('h3', {}, `Step ${selected.name}`),
      jsonDetails('Step input', selected.input),
      selected.output !== undefined ? jsonDetails('Step output', selected.output) : null,
      selected.error !== undefined ? jsonDetails('Step error', selected.error, { open: true }) : null,
      canReset ? resetButton(context, status, selected.name) : h('p', { class: 'hint' }, 'A reset starts after a completed step; this one has not completed.'),
    );
  };

  const loadClosed = async () => {
    const path = runPath(workflowId, runId);
    const [resultAnswer, traceAnswer] = await Promise.allSettled([api.get<WorkflowResultV2>(`${path}/result`), api.get<TraceLogView>(`${path}/trace-log`)]);
    if (destroyed) return;
    if (resultAnswer.status === 'fulfilled') result = resultAnswer.value;
    else notices.show(describe(resultAnswer.reason), 'error');
    if (traceAnswer.status === 'fulfilled') {
      trace = traceAnswer.value.data;
      traceNote = trace ? '' : `The trace is at ${traceAnswer.value.source === 'local' ? traceAnswer.value.localPath : 'its store'}; the server cannot read it.`;
    } else {
      traceNote = `No trace: ${describe(traceAnswer.reason)}`;
    }
    renderIo();
    scheduleTimeline();
  };

  /** An error of a read the page made; once the user has left, it is no longer theirs to see on another page. */
  const showError = (error: unknown) => {
    if (!destroyed) notices.show(describe(error), 'error');
  };

  const refreshStatus = async () => {
    const view = await api.get<RunStatusView>(`${runPath(workflowId, runId)}/status`);
    // Left meanwhile: the header would retitle the tab over the page the user went to.
    if (destroyed) return;
    status = view;
    renderHeader();
  };

  const ticker = setInterval(() => {
    if (status?.status === 'running') {
      renderHeader();
      scheduleTimeline();
    }
  }, 1000);

  const start = async () => {
    try {
      await refreshStatus();
    } catch (error) {
      if (destroyed) return;
      replaceChildren(element, h('h1', { tabindex: -1 }, workflowId), h('p', { role: 'alert', class: 'notice error' }, describe(error)), router.link('runs', {}, 'Back to the runs'));
      return;
    }
    // Left while the status was read: a stream opened now would follow the run for a page nobody sees.
    if (destroyed) return;
    renderIo();
    void api.get<InputView>(`${runPath(workflowId, runId)}/input`).then(
      (view) => {
        input = { value: view.input };
        renderIo();
      },
      showError,
    );
    if (status?.status !== 'running') void loadClosed();
    follower = followHistory(api, workflowId, runId, {
      workflow: (view) => {
        status = view;
        renderHeader();
      },
      history: (event) => {
        events.push(event);
        history.append(event);
        historyCount.textContent = `${history.count} events`;
        scheduleTimeline();
      },
      progress: (report) => {
        progress.push(report);
        scheduleTimeline();
      },
      done: () => {
        // The stream's `done` carries only the status; the times, result and trace come from their endpoints.
        void refreshStatus().then(() => (result ? undefined : loadClosed()), showError);
      },
      connection: (state, detail) => {
        connection.textContent = detail ? `${CONNECTION_WORDS[state]} (${detail})` : CONNECTION_WORDS[state];
        connection.dataset.state = state;
      },
    });
  };
  void start();

  return {
    element,
    focusTarget: title,
    destroy() {
      destroyed = true;
      follower?.stop();
      clearInterval(ticker);
      if (frame !== 0) cancelAnimationFrame(frame);
    },
  };
}

function outputNote(status: RunStatusView | undefined, result: WorkflowResultV2 | undefined): string {
  if (status?.status === 'running') return 'No output while the run is open.';
  if (!result) return '';
  return result.status === 'continued_as_new' ? 'No output: the run continued as new (see the next run).' : `No output: the run ended ${statusLabel(result.status)}.`;
}

/** What the action bar depends on. */
function factsOfActions(status: RunStatusView): string {
  return `${status.workflowId}|${status.runId}|${status.status}`;
}

function fact(term: string, value: Node | string, className?: string): HTMLElement {
  return h('div', { class: className }, h('dt', {}, term), h('dd', {}, value));
}

function errorSection(error: SerializedFailure): HTMLElement {
  return h(
    'section',
    { class: 'run-error', 'aria-labelledby': 'error-title' },
    h('h2', { id: 'error-title' }, 'Error'),
    h('p', {}, h('strong', {}, error.name), `: ${error.message}`),
    error.activityType ? h('p', {}, 'In step ', h('code', {}, error.activityType), error.retryable === false ? ' (not retryable)' : '') : null,
    error.cause ? jsonDetails('Cause', error.cause) : null,
  );
}

function describe(error: unknown): string {
  return error instanceof ApiError ? error.describe() : error instanceof Error ? error.message : String(error);
}

/** `runs/{id}`: the latest run of an id, then the pinned URL in its place. */
export function latestRunPage(env: PageEnv, workflowId: string): Page {
  const title = h('h1', { tabindex: -1 }, workflowId);
  const element = h('article', {}, title, h('p', {}, 'Finding the latest run…'));
  // Left before the answer: replacing the address then would pull the user back from the page they went to.
  let destroyed = false;
  void env.api.get<RunStatusView>(`/workflow/${encodeURIComponent(workflowId)}/status`).then(
    (view) => {
      if (!destroyed) env.router.navigate(runHref(view.workflowId, view.runId), { replace: true });
    },
    (error: unknown) => {
      if (!destroyed) replaceChildren(element, title, h('p', { role: 'alert', class: 'notice error' }, describe(error)));
    },
  );
  return {
    element,
    focusTarget: title,
    destroy() {
      destroyed = true;
    },
  };
}
