import { h, uniqueId } from './dom.js';

/** sessionStorage: the token lives as long as the tab, is never sent anywhere but the Authorization header. */
const STORAGE_KEY = 'flowgate.apiToken';

/**
 * The bearer token of an API with API_AUTH_TOKEN set. Asked for once, on the first 401, in a modal dialog; kept
 * for this tab only (never in a URL, a cookie or a log). Concurrent requests that hit a 401 share one prompt.
 */
export class TokenKeeper {
  private pending: Promise<string | null> | undefined;
  private readonly listeners: (() => void)[] = [];
  /** The user cancelled the prompt: calls fail with the API's 401 until they ask to enter a token (no re-prompt loop). */
  private declinedPrompt = false;

  get declined(): boolean {
    return this.declinedPrompt;
  }

  /** The user wants to enter a token after all. */
  allowPrompt(): void {
    this.declinedPrompt = false;
    this.changed();
  }

  get(): string | null {
    return sessionStorage.getItem(STORAGE_KEY);
  }

  forget(): void {
    sessionStorage.removeItem(STORAGE_KEY);
    this.changed();
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /**
   * Asks the user for a token; null when they cancel. `refused`: the token sent with the last request was refused
   * (the one already entered is wrong or has been rotated), which the dialog says.
   */
  obtain(refused: string | null): Promise<string | null> {
    if (this.declinedPrompt) return Promise.resolve(null);
    this.pending ??= this.prompt(refused).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private prompt(refused: string | null): Promise<string | null> {
    if (refused !== null && refused === this.get()) sessionStorage.removeItem(STORAGE_KEY);
    const inputId = uniqueId('token');
    const titleId = uniqueId('token-title');
    const input = h('input', { id: inputId, name: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
    const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const form = h(
      'form',
      { class: 'dialog-form' },
      h('h2', { id: titleId }, 'API token'),
      h(
        'p',
        {},
        refused !== null
          ? 'The API refused that token. Enter the API token again.'
          : 'This flowgate API needs its token (API_AUTH_TOKEN). It is kept for this browser tab only.',
      ),
      h('label', { for: inputId }, 'Token'),
      input,
      h('div', { class: 'dialog-buttons' }, h('button', { type: 'submit' }, 'Use token'), cancel),
    );
    const dialog = h('dialog', { 'aria-labelledby': titleId, class: 'token-dialog' }, form);
    document.body.append(dialog);
    return new Promise((resolve) => {
      const finish = (token: string | null) => {
        dialog.close();
        dialog.remove();
        if (token !== null) sessionStorage.setItem(STORAGE_KEY, token);
        else this.declinedPrompt = true;
        this.changed();
        resolve(token);
      };
      form.addEventListener('submit', (event) => {
        event.preventDefault();
        const token = input.value.trim();
        if (token !== '') finish(token);
      });
      cancel.addEventListener('click', () => finish(null));
      dialog.addEventListener('cancel', (event) => {
        event.preventDefault();
        finish(null);
      });
      dialog.showModal();
      input.focus();
    });
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}
