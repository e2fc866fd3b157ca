import { h, uniqueId } from '../dom.js';

/** A filter's text field: the browser's autocomplete is off, as a datalist offers the names that exist. */
export function textInput(attributes: Record<string, string>): HTMLInputElement {
  const input = h('input', { type: 'text', autocomplete: 'off', ...attributes });
  input.value = attributes.value ?? '';
  return input;
}

/** A control under its label, as the filter forms lay them out. */
export function labelled(text: string, control: HTMLElement): HTMLElement {
  const id = control.id || uniqueId('control');
  control.id = id;
  return h('div', { class: 'field' }, h('label', { for: id }, text), control);
}
