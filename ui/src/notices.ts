import { h, replaceChildren } from './dom.js';

/**
 * The page's one message line: what an action did, or the API's error for it, verbatim. Errors are an alert
 * (read out at once), successes a polite status. A message shown just before a navigation (the new run after a
 * reset) survives that navigation once.
 */
export class Notices {
  readonly element = h('div', { class: 'notices' });
  private keepThroughNavigation = false;

  show(message: string, kind: 'ok' | 'error', options: { acrossNavigation?: boolean } = {}): void {
    this.keepThroughNavigation = options.acrossNavigation ?? false;
    const lines = message.split('\n');
    const close = h('button', { type: 'button', class: 'secondary small', 'aria-label': 'Dismiss message', onclick: () => this.clear() }, '×');
    replaceChildren(
      this.element,
      h('div', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, h('div', { class: 'notice-text' }, ...lines.map((line) => h('p', {}, line))), close),
    );
  }

  clear(): void {
    replaceChildren(this.element);
  }

  /** Called on every navigation. */
  navigated(): void {
    if (this.keepThroughNavigation) this.keepThroughNavigation = false;
    else this.clear();
  }
}
