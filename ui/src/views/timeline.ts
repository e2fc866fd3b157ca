import { h, replaceChildren } from '../dom.js';
import { formatCost, formatDuration } from '../format.js';
import { runHref } from '../routes.js';
import type { Router } from '../router.js';
import type { FeedbackWait } from '../../../core/domain/feedbackWaits.js';
import type { TimelineRow } from '../timelineModel.js';

export interface TimelineOptions {
  router: Router;
  /** The step a reset can start from was chosen (or cleared). */
  onSelect(row: TimelineRow | undefined): void;
}

/**
 * The timeline: a row per step call, timer, child and wait for feedback, with a bar per attempt (a wait's bar spans the
 * wait) placed on the run's time axis. The bars
 * are drawing only (aria-hidden); each row's button and text say the same in words. Bars are positioned through
 * CSSOM (element.style), which the page's CSP allows, unlike style attributes.
 */
export class TimelineView {
  readonly element = h('div', { class: 'timeline' });
  private selectedKey: string | undefined;

  constructor(private readonly options: TimelineOptions) {}

  render(rows: readonly TimelineRow[], span: { start: number; end: number }, now: number, closed: boolean): void {
    const focusedKey = (document.activeElement as HTMLElement | null)?.dataset?.rowKey;
    if (rows.length === 0) {
      replaceChildren(this.element, h('p', { class: 'empty' }, closed ? 'The run ran no steps, timers or child runs.' : 'No steps yet.'));
      return;
    }
    const total = span.end - span.start;
    const place = (bar: HTMLElement, from: number, to: number) => {
      bar.style.left = `${((from - span.start) / total) * 100}%`;
      bar.style.width = `max(3px, ${((Math.max(to, from) - from) / total) * 100}%)`;
    };
    const list = h('ol', { class: 'timeline-rows' });
    for (const row of rows) {
      const end = row.endedAt ?? now;
      const started = row.attempts[0]?.startedAt ?? row.scheduledAt;
      const duration = formatDuration(end - started);
      const track = h('div', { class: 'track', 'aria-hidden': 'true' });
      if (row.attempts.length === 0) {
        const waiting = h('span', { class: 'bar waiting' });
        place(waiting, row.scheduledAt, now);
        track.append(waiting);
      }
      for (const attempt of row.attempts) {
        const bar = h('span', { class: `bar ${attempt.outcome}${attempt.earlier ? ' earlier' : ''}`, 'data-attempt': attempt.attempt, title: attemptTitle(row, attempt.attempt, attempt.earlier) });
        place(bar, attempt.startedAt, attempt.endedAt ?? (row.state === 'running' || row.state === 'scheduled' ? now : end));
        track.append(bar);
      }
      const label = row.kind === 'feedback' ? 'waiting for feedback' : row.name;
      const selectable = row.kind !== 'timer' && row.kind !== 'child' && row.kind !== 'feedback';
      const heading = selectable
        ? h('button', {
            type: 'button',
            class: 'row-button',
            'data-row-key': row.key,
            'aria-pressed': String(this.selectedKey === row.key),
            onclick: () => this.select(row),
          }, label)
        : row.kind === 'child' && row.child?.runId
          ? this.options.router.link(runHref(row.child.workflowId, row.child.runId), { class: 'row-link', 'data-row-key': row.key }, `child ${label}`)
          : h('span', { class: 'row-name' }, row.kind === 'timer' ? `sleep ${formatDuration(row.timerMs ?? 0)}` : label);
      list.append(
        h(
          'li',
          { class: `timeline-row ${row.kind}${row.replayed ? ' replayed' : ''}${this.selectedKey === row.key ? ' selected' : ''}`, 'data-state': row.state, 'data-kind': row.kind, 'data-step': row.name },
          heading,
          track,
          h('p', { class: 'row-facts' }, ...facts(row, duration)),
        ),
      );
    }
    const axis = h('div', { class: 'axis', 'aria-hidden': 'true' }, h('span', {}, '0 s'), h('span', {}, formatDuration(total)));
    replaceChildren(this.element, axis, list);
    if (focusedKey) (this.element.querySelector(`[data-row-key="${CSS.escape(focusedKey)}"]`) as HTMLElement | null)?.focus();
  }

  private select(row: TimelineRow): void {
    this.selectedKey = this.selectedKey === row.key ? undefined : row.key;
    for (const button of this.element.querySelectorAll<HTMLButtonElement>('button.row-button')) {
      const selected = button.dataset.rowKey === this.selectedKey;
      button.setAttribute('aria-pressed', String(selected));
      button.closest('li')?.classList.toggle('selected', selected);
    }
    this.options.onSelect(this.selectedKey === undefined ? undefined : row);
  }

  get selected(): string | undefined {
    return this.selectedKey;
  }
}

function attemptTitle(row: TimelineRow, attempt: number, earlier: boolean | undefined): string {
  if (row.kind === 'feedback') return `waiting for feedback: ${stateWord(row)}`;
  if (earlier) return `${row.name}: attempts 1 to ${attempt} (failed)`;
  return `${row.name}: attempt ${attempt}`;
}

function facts(row: TimelineRow, duration: string): (string | HTMLElement)[] {
  const parts: (string | HTMLElement)[] = [h('span', { class: `state ${row.state}` }, stateWord(row))];
  parts.push(h('span', { class: 'duration' }, duration));
  if (row.wait?.timeoutMs !== undefined) parts.push(h('span', { class: 'limit' }, `time limit ${formatDuration(row.wait.timeoutMs)}`));
  if (row.replayed) parts.push(h('span', { class: 'replayed' }, 'replayed from the run this one was reset from'));
  if (row.attemptCount > 1) parts.push(h('span', { class: 'retries' }, `${row.attemptCount} attempts (${row.attemptCount - 1} ${row.attemptCount === 2 ? 'retry' : 'retries'})`));
  const aggregations = row.aggregations;
  if (aggregations) {
    if (aggregations.totalCost > 0) parts.push(h('span', { class: 'cost' }, `cost ${formatCost(aggregations.totalCost)}`));
    if (aggregations.tokens > 0) parts.push(h('span', { class: 'tokens' }, `${aggregations.tokens} tokens`));
    if (aggregations.httpCalls > 0) parts.push(h('span', { class: 'http' }, `${aggregations.httpCalls} HTTP ${aggregations.httpCalls === 1 ? 'call' : 'calls'}`));
  }
  if (row.progress) {
    parts.push(h('span', { class: 'progress' }, `${row.state === 'running' ? 'progress' : 'last progress'}: ${Object.entries(row.progress.fields).map(([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`).join(', ')}`));
  }
  return parts;
}

const WAIT_ENDS: Record<NonNullable<FeedbackWait['end']>, string> = {
  feedback: 'answered',
  timed_out: 'timed out',
  cancel_requested: 'stopped',
  reset: 'ended by the reset',
  run_closed: 'ended with the run',
};

function stateWord(row: TimelineRow): string {
  if (row.kind === 'timer') return row.state === 'completed' ? 'fired' : 'waiting';
  if (row.kind === 'feedback') return row.wait?.end ? WAIT_ENDS[row.wait.end] : 'waiting';
  return row.state;
}
