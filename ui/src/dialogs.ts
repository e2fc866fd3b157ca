import { h, uniqueId } from './dom.js';

export interface DialogField {
  name: string;
  label: string;
  /** `json`: a textarea whose text must parse as JSON (an object when `object` is set). */
  kind: 'text' | 'json';
  value?: string;
  required?: boolean;
  hint?: string;
  object?: boolean;
}

export interface ConfirmOptions {
  title: string;
  message: string;
  confirmLabel: string;
  /** Irreversible: the confirm button says so by its style. */
  danger?: boolean;
  fields?: readonly DialogField[];
}

/**
 * A modal confirmation (native <dialog>: focus kept inside, Escape cancels, focus returns where it was). Resolves to
 * the fields' values, JSON fields parsed, or null when cancelled.
 */
export function confirmAction(options: ConfirmOptions): Promise<Record<string, unknown> | null> {
  const titleId = uniqueId('dialog-title');
  const messageId = uniqueId('dialog-message');
  const problem = h('p', { class: 'field-problem', role: 'alert' });
  const inputs = (options.fields ?? []).map((field) => {
    const id = uniqueId(`field-${field.name}`);
    const hintId = field.hint ? uniqueId('hint') : undefined;
    const control =
      field.kind === 'json'
        ? h('textarea', { id, name: field.name, rows: 6, spellcheck: 'false', class: 'code', 'aria-describedby': hintId })
        : h('input', { id, name: field.name, type: 'text', 'aria-describedby': hintId, required: field.required ?? false });
    control.value = field.value ?? '';
    const block = h('div', { class: 'field' }, h('label', { for: id }, field.label), control, field.hint ? h('p', { id: hintId, class: 'hint' }, field.hint) : null);
    return { field, control, block };
  });
  const confirm = h('button', { type: 'submit', class: options.danger ? 'danger' : '' }, options.confirmLabel);
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const form = h(
    'form',
    { class: 'dialog-form' },
    h('h2', { id: titleId }, options.title),
    h('p', { id: messageId }, options.message),
    ...inputs.map(({ block }) => block),
    problem,
    h('div', { class: 'dialog-buttons' }, confirm, cancel),
  );
  const dialog = h('dialog', { 'aria-labelledby': titleId, 'aria-describedby': messageId }, form);
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  document.body.append(dialog);
  return new Promise((resolve) => {
    const finish = (values: Record<string, unknown> | null) => {
      dialog.close();
      dialog.remove();
      opener?.focus();
      resolve(values);
    };
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const values: Record<string, unknown> = {};
      for (const { field, control } of inputs) {
        const text = control.value.trim();
        if (field.kind !== 'json') {
          if (text !== '') values[field.name] = text;
          continue;
        }
        try {
          const parsed: unknown = JSON.parse(text === '' ? 'null' : text);
          if (field.object && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) throw new Error('a JSON object is needed, such as {"approved": true}');
          values[field.name] = parsed;
        } catch (error) {
          problem.textContent = `${field.label}: ${error instanceof Error ? error.message : String(error)}`;
          control.focus();
          return;
        }
      }
      finish(values);
    });
    cancel.addEventListener('click', () => finish(null));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      finish(null);
    });
    dialog.showModal();
    (inputs[0]?.control ?? cancel).focus();
  });
}
