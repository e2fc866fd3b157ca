import { h } from '../dom.js';
import { prettyJson } from '../format.js';

/** A collapsible JSON value: a native <details>, so it opens with the keyboard and says its state to screen readers. */
export function jsonDetails(label: string, value: unknown, options: { open?: boolean } = {}): HTMLDetailsElement {
  return h(
    'details',
    { class: 'json', open: options.open ?? false },
    h('summary', {}, label),
    h('pre', { tabindex: 0, 'aria-label': label }, h('code', {}, prettyJson(value))),
  );
}
