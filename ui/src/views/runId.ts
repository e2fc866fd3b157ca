import { h } from '../dom.js';

const COPIED_FOR_MS = 2000;

/**
 * A run id in full: selected whole by one click (CSS `user-select: all`), for the runs table where a button per row
 * would cost more than the row.
 */
export function runIdText(runId: string): HTMLElement {
  return h('code', { class: 'run-id' }, runId);
}

/**
 * A run id in full with a Copy button. The clipboard is reachable only from a secure context (https, or loopback):
 * elsewhere the button selects the id and says how to copy it.
 */
export function copyableRunId(runId: string): HTMLElement {
  const text = runIdText(runId);
  const said = h('span', { class: 'copy-result', role: 'status' });
  const button = h('button', { type: 'button', class: 'secondary small copy', 'aria-label': 'Copy run id' }, 'Copy');
  let clearSaid: ReturnType<typeof setTimeout> | undefined;
  const say = (words: string) => {
    said.textContent = words;
    clearTimeout(clearSaid);
    clearSaid = setTimeout(() => (said.textContent = ''), COPIED_FOR_MS);
  };
  button.addEventListener('click', () => {
    const select = () => {
      getSelection()?.selectAllChildren(text);
      said.textContent = 'Selected: press Ctrl+C (⌘C) to copy';
    };
    if (!navigator.clipboard || !isSecureContext) {
      select();
      return;
    }
    navigator.clipboard.writeText(runId).then(() => say('Copied'), select);
  });
  return h('span', { class: 'copyable' }, text, button, said);
}
