import { h, uniqueId } from '../dom.js';

/*
 * A form generated from a workflow's input JSON Schema (as zod publishes it): objects (nested as fieldsets),
 * strings (a select for an enum), numbers and integers, booleans, and arrays of those. Anything else (unions,
 * references, arrays of objects, open records) is not guessed at: schemaForm answers undefined and the page falls
 * back to a JSON editor.
 */

type Schema = Record<string, unknown>;

export interface SchemaForm {
  element: HTMLElement;
  /** The input the form describes. */
  value(): Record<string, unknown>;
  /** Fills the form from a value; false when the value has anything the form cannot show (then nothing changes). */
  fill(value: unknown): boolean;
}

interface FieldControl {
  element: HTMLElement;
  /** undefined: left empty (omitted when optional). */
  read(): unknown;
  write(value: unknown): boolean;
}

export function schemaForm(schema: unknown): SchemaForm | undefined {
  if (!isObjectSchema(schema)) return undefined;
  const root = objectControl(schema, undefined, true);
  if (!root) return undefined;
  return {
    element: root.element,
    value: () => (root.read() as Record<string, unknown> | undefined) ?? {},
    fill: (value) => {
      if (!canFill(schema, value)) return false;
      return root.write(value);
    },
  };
}

function isObjectSchema(schema: unknown): schema is Schema {
  return typeof schema === 'object' && schema !== null && (schema as Schema).type === 'object' && !hasCombinators(schema as Schema);
}

function hasCombinators(schema: Schema): boolean {
  return ['anyOf', 'oneOf', 'allOf', '$ref', 'not', 'if', 'patternProperties'].some((keyword) => keyword in schema);
}

function objectControl(schema: Schema, name: string | undefined, required: boolean): FieldControl | undefined {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const requiredNames = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const children: [string, FieldControl][] = [];
  for (const [property, propertySchema] of Object.entries(properties)) {
    const control = controlFor(propertySchema, property, requiredNames.has(property));
    if (!control) return undefined;
    children.push([property, control]);
  }
  const content = children.map(([, control]) => control.element);
  const element =
    name === undefined
      ? h('div', { class: 'schema-form' }, ...content)
      : h('fieldset', { class: 'nested' }, h('legend', {}, required ? name : `${name} (optional)`), ...content);
  return {
    element,
    read() {
      const value: Record<string, unknown> = {};
      for (const [property, control] of children) {
        const read = control.read();
        if (read !== undefined) value[property] = read;
      }
      return !required && Object.keys(value).length === 0 ? undefined : value;
    },
    write(value) {
      const object = (value ?? {}) as Record<string, unknown>;
      return children.every(([property, control]) => control.write(object[property]));
    },
  };
}

function controlFor(schema: unknown, name: string, required: boolean): FieldControl | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const node = schema as Schema;
  if (hasCombinators(node)) return undefined;
  if (node.type === 'object') return objectControl(node, name, required);
  if (Array.isArray(node.enum) && node.enum.every((option) => typeof option === 'string')) return enumControl(node, name, required);
  if (node.type === 'string') return inputControl(node, name, required, 'text');
  if (node.type === 'number' || node.type === 'integer') return inputControl(node, name, required, 'number');
  if (node.type === 'boolean') return booleanControl(node, name, required);
  if (node.type === 'array' && typeof node.items === 'object' && node.items !== null) {
    const itemType = (node.items as Schema).type;
    if (itemType === 'string' || itemType === 'number' || itemType === 'integer') return listControl(node, name, required, itemType);
  }
  return undefined;
}

/** Label, control and the schema's description, wired for assistive technology. */
function wrap(node: Schema, name: string, required: boolean, control: HTMLElement, extraHint?: string): HTMLElement {
  const id = uniqueId(`input-${name}`);
  control.id = id;
  const hintText = [typeof node.description === 'string' ? node.description : '', extraHint ?? ''].filter(Boolean).join(' ');
  const hintId = hintText ? uniqueId('hint') : undefined;
  if (hintId) control.setAttribute('aria-describedby', hintId);
  return h('div', { class: 'field' }, h('label', { for: id }, required ? name : `${name} (optional)`), control, hintId ? h('p', { id: hintId, class: 'hint' }, hintText) : null);
}

function inputControl(node: Schema, name: string, required: boolean, type: 'text' | 'number'): FieldControl {
  const input = h('input', { type, name, required, autocomplete: 'off' });
  if (type === 'number') {
    input.step = node.type === 'integer' ? '1' : 'any';
    if (typeof node.minimum === 'number' && Math.abs(node.minimum) < Number.MAX_SAFE_INTEGER) input.min = String(node.minimum);
    if (typeof node.maximum === 'number' && Math.abs(node.maximum) < Number.MAX_SAFE_INTEGER) input.max = String(node.maximum);
  } else {
    if (typeof node.minLength === 'number') input.minLength = node.minLength;
    if (typeof node.maxLength === 'number') input.maxLength = node.maxLength;
  }
  const write = (value: unknown) => {
    if (value === undefined) {
      input.value = '';
      return true;
    }
    if (type === 'number' ? typeof value !== 'number' : typeof value !== 'string') return false;
    input.value = String(value);
    return true;
  };
  write(node.default);
  return {
    element: wrap(node, name, required, input),
    read: () => (input.value === '' && (!required || type === 'number') ? undefined : type === 'number' ? Number(input.value) : input.value),
    write,
  };
}

function enumControl(node: Schema, name: string, required: boolean): FieldControl {
  const options = node.enum as string[];
  const select = h('select', { name, required }, required ? null : h('option', { value: '' }, '—'), ...options.map((option) => h('option', { value: option }, option)));
  if (typeof node.default === 'string') select.value = node.default;
  return {
    element: wrap(node, name, required, select),
    read: () => (select.value === '' && !required ? undefined : select.value),
    write: (value) => {
      if (value === undefined) {
        select.value = required ? (options[0] ?? '') : '';
        return true;
      }
      if (typeof value !== 'string' || !options.includes(value)) return false;
      select.value = value;
      return true;
    },
  };
}

/** A checkbox when required; when optional, a choice that can also be left unset. */
function booleanControl(node: Schema, name: string, required: boolean): FieldControl {
  if (required) {
    const box = h('input', { type: 'checkbox', name });
    box.checked = node.default === true;
    const id = uniqueId(`input-${name}`);
    box.id = id;
    return {
      element: h('div', { class: 'field checkbox' }, box, h('label', { for: id }, name), typeof node.description === 'string' ? h('p', { class: 'hint' }, node.description) : null),
      read: () => box.checked,
      write: (value) => {
        if (value !== undefined && typeof value !== 'boolean') return false;
        box.checked = value === true;
        return true;
      },
    };
  }
  const select = h('select', { name }, h('option', { value: '' }, '—'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
  if (typeof node.default === 'boolean') select.value = String(node.default);
  return {
    element: wrap(node, name, required, select),
    read: () => (select.value === '' ? undefined : select.value === 'true'),
    write: (value) => {
      if (value !== undefined && typeof value !== 'boolean') return false;
      select.value = value === undefined ? '' : String(value);
      return true;
    },
  };
}

function listControl(node: Schema, name: string, required: boolean, itemType: 'string' | 'number' | 'integer'): FieldControl {
  const area = h('textarea', { name, rows: 3, spellcheck: 'false' });
  const numeric = itemType !== 'string';
  const write = (value: unknown) => {
    if (value === undefined) {
      area.value = '';
      return true;
    }
    if (!Array.isArray(value) || !value.every((item) => typeof item === (numeric ? 'number' : 'string'))) return false;
    area.value = value.join('\n');
    return true;
  };
  write(node.default);
  return {
    element: wrap(node, name, required, area, `One ${numeric ? 'number' : 'value'} per line.`),
    read: () => {
      const lines = area.value.split('\n').map((line) => line.trim()).filter((line) => line !== '');
      if (lines.length === 0 && !required) return undefined;
      return numeric ? lines.map(Number) : lines;
    },
    write,
  };
}

/** Whether a value only has what the schema's form can show (no unknown keys at any level). */
function canFill(schema: Schema, value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  return Object.entries(value).every(([key, item]) => {
    const property = properties[key] as Schema | undefined;
    if (!property) return false;
    return property.type === 'object' ? canFill(property, item) : true;
  });
}
