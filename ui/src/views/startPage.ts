import type { StartView, WorkflowListEntry, WorkflowListView } from '../../../core/api/views.js';
import { ApiError } from '../api.js';
import { h, replaceChildren, uniqueId } from '../dom.js';
import { prettyJson } from '../format.js';
import { runHref, startHref } from '../routes.js';
import { jsonDetails } from './jsonView.js';
import type { Page, PageEnv } from './page.js';
import { schemaForm, type SchemaForm } from './schemaForm.js';

/**
 * Start a run of a workflow from a catalog: a form generated from the workflow's input JSON Schema, or a JSON editor
 * when the schema goes beyond what the form shows (and whenever the user prefers it). Errors are the API's own,
 * validation issues listed by path.
 */
export function startPage(env: PageEnv, initial: { workflowName: string | undefined; catalog: string | undefined }): Page {
  const { api, router, notices } = env;
  let workflows: WorkflowListEntry[] = [];
  let form: SchemaForm | undefined;
  let mode: 'form' | 'json' = 'form';

  const title = h('h1', { tabindex: -1 }, 'Start a run');
  const catalogId = uniqueId('catalog');
  const catalogInput = h('input', { id: catalogId, name: 'catalog', type: 'text', autocomplete: 'off', placeholder: 'default' });
  catalogInput.value = initial.catalog ?? '';
  const catalogForm = h(
    'form',
    { class: 'filters', 'aria-label': 'Catalog' },
    h('div', { class: 'field' }, h('label', { for: catalogId }, 'Catalog'), catalogInput),
    h('button', { type: 'submit', class: 'secondary' }, 'Load workflows'),
  );
  const workflowId = uniqueId('workflow');
  const workflowSelect = h('select', { id: workflowId, name: 'workflowName', required: true });
  const description = h('p', { class: 'hint', id: uniqueId('description') });
  workflowSelect.setAttribute('aria-describedby', description.id);
  const idInputId = uniqueId('workflow-id');
  const idInput = h('input', { id: idInputId, name: 'workflowId', type: 'text', autocomplete: 'off', placeholder: 'generated when empty' });
  const inputArea = h('div', { class: 'input-area' });
  const modeButton = h('button', { type: 'button', class: 'secondary small' });
  const jsonId = uniqueId('input-json');
  const jsonEditor = h('textarea', { id: jsonId, name: 'input', rows: 10, spellcheck: 'false', class: 'code' });
  const schemaBox = h('div');
  const startButton = h('button', { type: 'submit' }, 'Start run');
  const cannotStart = h('p', { class: 'hint cannot-start', hidden: true });
  // A key without the start scope reads the form but cannot send it; the page says so instead of a refusal later.
  void env.access.describe().then((key) => {
    if (key?.key == null || key.can.start) return;
    startButton.disabled = true;
    cannotStart.hidden = false;
    cannotStart.textContent = `API key "${key.key.id}" (scopes: ${key.key.scopes.join(', ')}) cannot start runs: that needs the "start" scope.`;
  });
  const startForm = h(
    'form',
    { class: 'start-form', 'aria-label': 'Start a run' },
    h('div', { class: 'field' }, h('label', { for: workflowId }, 'Workflow'), workflowSelect, description),
    h('div', { class: 'field' }, h('label', { for: idInputId }, 'Workflow id (optional)'), idInput),
    h('fieldset', { class: 'input' }, h('legend', {}, 'Input'), modeButton, inputArea),
    schemaBox,
    startButton,
    cannotStart,
  );
  const element = h('section', { class: 'start' }, h('p', { class: 'breadcrumb' }, router.link('runs', {}, 'Runs'), ' › start'), title, catalogForm, startForm);

  const selected = (): WorkflowListEntry | undefined => workflows.find((workflow) => workflow.name === workflowSelect.value);

  const showInput = () => {
    const workflow = selected();
    if (!workflow) {
      replaceChildren(inputArea, h('p', {}, 'Choose a workflow.'));
      return;
    }
    if (mode === 'form' && form) {
      modeButton.textContent = 'Edit as JSON';
      modeButton.hidden = false;
      replaceChildren(inputArea, form.element);
    } else {
      modeButton.textContent = 'Use the form';
      modeButton.hidden = form === undefined;
      replaceChildren(
        inputArea,
        form ? null : h('p', { class: 'hint' }, 'This input schema goes beyond what the form can show; enter the input as JSON (it is checked against the schema when the run starts).'),
        h('label', { for: jsonId }, 'Input (JSON)'),
        jsonEditor,
      );
    }
  };

  const choose = () => {
    const workflow = selected();
    description.textContent = workflow?.description ?? '';
    form = workflow ? schemaForm(workflow.inputSchema) : undefined;
    mode = form ? 'form' : 'json';
    jsonEditor.value = form ? prettyJson(form.value()) : '{}';
    replaceChildren(schemaBox, workflow ? jsonDetails('Input schema', workflow.inputSchema) : null);
    showInput();
    if (workflow) router.replaceQuietly(startHref(workflow.name, catalogInput.value.trim() || undefined));
  };

  const loadCatalog = async () => {
    try {
      const list = await api.get<WorkflowListView>('/workflow/list', { catalog: catalogInput.value.trim() });
      workflows = list.workflows;
      replaceChildren(workflowSelect, ...workflows.map((workflow) => h('option', { value: workflow.name }, workflow.name)));
      if (initial.workflowName && workflows.some((workflow) => workflow.name === initial.workflowName)) workflowSelect.value = initial.workflowName;
      initial.workflowName = undefined;
      choose();
    } catch (error) {
      workflows = [];
      replaceChildren(workflowSelect);
      choose();
      const said = error instanceof ApiError ? error.describe() : String(error);
      notices.show(error instanceof ApiError && error.status === 403 ? `Refused: ${said}` : said, 'error');
    }
  };

  modeButton.addEventListener('click', () => {
    if (mode === 'form' && form) {
      jsonEditor.value = prettyJson(form.value());
      mode = 'json';
    } else if (form) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(jsonEditor.value);
      } catch (error) {
        notices.show(`The input is not JSON: ${error instanceof Error ? error.message : String(error)}`, 'error');
        return;
      }
      if (!form.fill(parsed)) {
        notices.show('This input has values the form cannot show; keep editing it as JSON.', 'error');
        return;
      }
      mode = 'form';
    }
    showInput();
    (inputArea.querySelector('input, select, textarea') as HTMLElement | null)?.focus();
  });
  catalogForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void loadCatalog();
  });
  workflowSelect.addEventListener('change', choose);
  startForm.addEventListener('submit', (event) => {
    event.preventDefault();
    void start();
  });

  const start = async () => {
    const workflow = selected();
    if (!workflow) return;
    let input: unknown;
    if (mode === 'form' && form) {
      input = form.value();
    } else {
      try {
        input = JSON.parse(jsonEditor.value);
      } catch (error) {
        notices.show(`The input is not JSON: ${error instanceof Error ? error.message : String(error)}`, 'error');
        jsonEditor.focus();
        return;
      }
    }
    const catalog = catalogInput.value.trim();
    const id = idInput.value.trim();
    try {
      const started = await api.post<StartView>('/workflow', { workflowName: workflow.name, input, ...(catalog ? { catalog } : {}), ...(id ? { workflowId: id } : {}) });
      notices.show(`Started run ${started.runId} of ${started.workflowId}.`, 'ok', { acrossNavigation: true });
      router.navigate(runHref(started.workflowId, started.runId));
    } catch (error) {
      notices.show(error instanceof ApiError ? error.describe() : String(error), 'error');
    }
  };

  void loadCatalog();
  return { element, focusTarget: title, destroy() {} };
}
