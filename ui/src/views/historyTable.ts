import type { HistoryEvent } from '../../../core/domain/history.js';
import { h } from '../dom.js';
import { formatDuration } from '../format.js';

const SUMMARY_CHARS = 160;

/** The run's history as a table that grows while the run is live; each event once (the follower dedupes). */
export class HistoryTable {
  private readonly body = h('tbody');
  readonly element = h(
    'div',
    { class: 'table-scroll', tabindex: 0, role: 'region', 'aria-label': 'History events' },
    h(
      'table',
      { class: 'history' },
      h('caption', { class: 'visually-hidden' }, 'History events, oldest first'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, '#'), h('th', { scope: 'col' }, 'At'), h('th', { scope: 'col' }, 'Event'), h('th', { scope: 'col' }, 'Step'), h('th', { scope: 'col' }, 'By'), h('th', { scope: 'col' }, 'Attributes'))),
      this.body,
    ),
  );

  constructor(private readonly startedAt: () => number) {}

  append(event: HistoryEvent): void {
    const offset = Date.parse(event.time) - this.startedAt();
    // Who made the change (docs/security.md, Who did what) has a column of its own.
    const { identity, ...attributes } = event.attributes;
    const summary = JSON.stringify(attributes);
    this.body.append(
      h(
        'tr',
        { 'data-event-id': event.eventId, 'data-type': event.type },
        h('td', {}, event.eventId),
        // Negative for history a reset copied from the run it started from.
        h('td', { title: event.time }, offset < 0 ? `−${formatDuration(-offset)}` : `+${formatDuration(offset)}`),
        h('td', {}, h('code', {}, event.type)),
        h('td', {}, event.stepName ?? ''),
        h('td', { class: 'identity' }, typeof identity === 'string' ? identity : ''),
        h('td', { class: 'attributes' }, summary === '{}' ? '' : summary.length > SUMMARY_CHARS ? `${summary.slice(0, SUMMARY_CHARS)}…` : summary),
      ),
    );
  }

  get count(): number {
    return this.body.rows.length;
  }
}
