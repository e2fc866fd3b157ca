import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { call, uniqueId } from '../support/http.js';
import { runPath, runToEnd, startRun } from './support/api.js';
import { assertNoProblems, NO_TRACE_ON_TEMPORAL, openUi, screenshot, uiSuite } from './support/uiSuite.js';

/** What a user does to runs from the page: each action confirmed first, answered with the API's own words. */
const test = uiSuite('UI: actions');

const dialog = (page: Page) => page.getByRole('dialog');
const notice = (page: Page) => page.locator('.notice');
const jsonBlock = (page: Page, label: string) => page.locator(`details.json:has(> summary:text-is("${label}"))`);

test('reset from a step chosen on the timeline creates the new run, and the page shows it', async (context) => {
  const original = await runToEnd(context.api, 'arithmetic', { n: 4 }, uniqueId('reset'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(original));
  try {
    await page.locator('.timeline-row[data-step="add_one"] .state.completed').waitFor();
    await page.getByRole('button', { name: 'add_one', exact: true }).click();
    await page.getByRole('button', { name: 'Reset to after add_one…' }).click();
    assert.match(await dialog(page).textContent() ?? '', /replays everything completed up to the last completion of add_one/);
    await dialog(page).getByLabel('Reason (optional)').fill('double again');
    await dialog(page).getByRole('button', { name: 'Reset run' }).click();
    await page.waitForURL((url) => url.pathname.includes(encodeURIComponent(original.workflowId)) && !url.pathname.endsWith(original.runId));
    const newRunId = decodeURIComponent(page.url().split('/').pop()!);
    assert.match(await notice(page).textContent() ?? '', new RegExp(`Reset from add_one: this is the new run ${newRunId.slice(0, 8)}`));
    await page.getByRole('navigation', { name: 'Related runs' }).getByRole('link', { name: original.runId.slice(0, 8) }).waitFor();
    await page.locator('.status-line .badge.status-completed').waitFor();
    assert.match(await page.locator('.facts').textContent() ?? '', new RegExp(newRunId));
    await page.locator('tr[data-type="workflow_completed"]').waitFor();
    assert.is(await page.locator('.timeline-row.replayed').getAttribute('data-step'), 'add_one', 'add_one was replayed, not run again');
    assert.is(await page.locator('.timeline-row[data-step="double"].replayed').count(), 0);
    const status = await call(context.api, 'GET', `/workflow/${encodeURIComponent(original.workflowId)}/status`);
    assert.is(status.body.runId, newRunId, 'the page shows the run the API made');
    await screenshot(page, 'run-reset');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('stop and terminate: a cancel leaves the run alone; confirmed, the run ends and the page follows', async (context) => {
  const stopping = await startRun(context.api, 'cleans_up_on_stop', {}, uniqueId('stop'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(stopping));
  try {
    await page.locator('.connection[data-state="live"]').waitFor();
    await page.getByRole('button', { name: 'Stop…' }).click();
    await dialog(page).getByRole('button', { name: 'Cancel' }).click();
    assert.is(await dialog(page).count(), 0);
    assert.is((await call(context.api, 'GET', `/workflow/${encodeURIComponent(stopping.workflowId)}/status`)).body.status, 'running', 'nothing happens without confirming');
    await page.getByRole('button', { name: 'Stop…' }).click();
    await dialog(page).getByRole('button', { name: 'Stop run' }).click();
    await page.locator('.status-line .badge.status-cancelled').waitFor();
    assert.match(await notice(page).textContent() ?? '', /Stop requested/);
    // The clean-up step ran after the stop, and the timeline shows it.
    await page.locator('.timeline-row[data-step="clean_up"]').waitFor();

    const sleeping = await startRun(context.api, 'sleeper', { ms: 600_000 }, uniqueId('terminate'));
    await page.goto(`${context.ui}${runPath(sleeping)}`);
    await page.getByRole('button', { name: 'Terminate…' }).click();
    await dialog(page).getByLabel('Reason (optional)').fill('no longer needed');
    await dialog(page).getByRole('button', { name: 'Terminate run' }).click();
    await page.locator('.status-line .badge.status-terminated').waitFor();
    await page.locator('tr[data-type="workflow_terminated"]', { hasText: 'no longer needed' }).waitFor();
    assertNoProblems(problems, [NO_TRACE_ON_TEMPORAL]);
  } finally {
    await browserContext.close();
  }
});

test('feedback resumes a run waiting on a webhook; a closed run answers with the API\'s own error', async (context) => {
  const waiting = await startRun(context.api, 'awaits_feedback', {}, uniqueId('feedback'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(waiting));
  try {
    await page.getByRole('button', { name: 'Send feedback…' }).click();
    const payload = dialog(page).getByLabel('Payload (JSON object)');
    await payload.fill('[1, 2');
    await dialog(page).getByRole('button', { name: 'Send feedback' }).click();
    assert.match(await dialog(page).getByRole('alert').textContent() ?? '', /Payload \(JSON object\):/, 'bad JSON is caught before any call');
    await payload.fill('{"approved": true, "by": "ui"}');
    await dialog(page).getByRole('button', { name: 'Send feedback' }).click();
    await page.locator('.status-line .badge.status-completed').waitFor();
    assert.match(await jsonBlock(page, 'Output').textContent() ?? '', /"by": "ui"/);

    // The dialog is open while the run closes elsewhere: the API's 409 is shown as it said it.
    const closing = await startRun(context.api, 'awaits_feedback', {}, uniqueId('closed'));
    await page.goto(`${context.ui}${runPath(closing)}`);
    await page.getByRole('button', { name: 'Send feedback…' }).click();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(closing.workflowId)}/runs/${closing.runId}/terminate`, { json: {} });
    await dialog(page).getByRole('button', { name: 'Send feedback' }).click();
    const alert = page.locator('.notice.error');
    await alert.waitFor();
    const answer = await call(context.api, 'POST', '/workflow/feedback', { json: { workflowId: closing.workflowId, payload: {} } });
    assert.is(answer.status, 409);
    assert.is((await alert.textContent())?.replace('×', '').trim(), `${answer.body.error}: ${answer.body.message}`);
    assert.is(await alert.getAttribute('role'), 'alert');
    await screenshot(page, 'action-error');
    assertNoProblems(problems, [/^HTTP 409 POST \/.*\/workflow\/feedback$/, NO_TRACE_ON_TEMPORAL]);
  } finally {
    await browserContext.close();
  }
});

test('rerun starts a new run of the same workflow with the same input', async (context) => {
  const original = await runToEnd(context.api, 'echo', { message: 'once more' }, uniqueId('rerun'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(original));
  try {
    await jsonBlock(page, 'Input').waitFor();
    await page.getByRole('button', { name: 'Rerun…' }).click();
    await dialog(page).getByRole('button', { name: 'Start new run' }).click();
    await page.waitForURL((url) => !url.pathname.includes(encodeURIComponent(original.workflowId)));
    await page.locator('.status-line .badge.status-completed').waitFor();
    assert.match(await jsonBlock(page, 'Input').textContent() ?? '', /"message": "once more"/);
    assert.match(await page.locator('.facts').textContent() ?? '', /echo/);
    assert.match(await notice(page).textContent() ?? '', /with the same input/);
    assert.match(await page.locator('.facts').textContent() ?? '', new RegExp(`Rerun of${original.workflowId}`), 'the new run names the run it repeats');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('start a run from the catalog: a form generated from the input schema', async (context) => {
  const { page, context: browserContext, problems } = await openUi(context, 'start?workflow=ui_ticket');
  try {
    await page.getByLabel('title', { exact: true }).fill('Printer on fire');
    assert.is(await page.getByLabel('title', { exact: true }).getAttribute('aria-describedby') !== null, true, 'the schema\'s description is the field\'s hint');
    await page.getByLabel('priority').selectOption('high');
    await page.getByLabel('estimateHours').fill('3');
    await page.getByLabel('urgent').check();
    await page.getByLabel('labels (optional)').fill('hardware\nfloor 2');
    await page.getByLabel('name', { exact: true }).fill('Ann');
    await page.getByLabel('Workflow id (optional)').fill(uniqueId('ticket'));
    await screenshot(page, 'start-form');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.waitForURL(/\/runs\/ticket-/);
    await page.locator('.status-line .badge.status-completed').waitFor();
    const input = JSON.parse((await jsonBlock(page, 'Input').locator('code').textContent())!);
    assert.equal(input, { title: 'Printer on fire', priority: 'high', estimateHours: 3, urgent: true, labels: ['hardware', 'floor 2'], owner: { name: 'Ann' } });
    assert.match(await jsonBlock(page, 'Output').textContent() ?? '', /"ticket": "high: Printer on fire"/);
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('a schema the form cannot show falls back to a JSON editor; a bad input gets the API\'s ValidationError and its issues', async (context) => {
  const { page, context: browserContext, problems } = await openUi(context, 'start?workflow=ui_freeform');
  try {
    const editor = page.getByLabel('Input (JSON)');
    await editor.waitFor();
    assert.match(await page.locator('.input-area').textContent() ?? '', /goes beyond what the form can show/);
    await editor.fill('{"target": 5}');
    await page.getByRole('button', { name: 'Start run' }).click();
    const alert = page.locator('.notice.error');
    await alert.waitFor();
    assert.match(await alert.textContent() ?? '', /^ValidationError: /);
    assert.match(await alert.textContent() ?? '', /target: /, 'each issue with its path');
    await editor.fill('{"target": {"host": "db", "port": 5432}}');
    await page.getByRole('button', { name: 'Start run' }).click();
    await page.locator('.status-line .badge.status-completed').waitFor();

    // The form and the JSON editor carry the same input both ways.
    await page.goto(`${context.ui}start?workflow=ui_ticket`);
    await page.getByLabel('title', { exact: true }).fill('Round trip');
    await page.getByRole('button', { name: 'Edit as JSON' }).click();
    const json = JSON.parse(await page.getByLabel('Input (JSON)').inputValue());
    assert.is(json.title, 'Round trip');
    await page.getByLabel('Input (JSON)').fill(JSON.stringify({ ...json, priority: 'low', owner: { name: 'Bo' } }));
    await page.getByRole('button', { name: 'Use the form' }).click();
    assert.is(await page.getByLabel('priority').inputValue(), 'low');
    assert.is(await page.getByLabel('name', { exact: true }).inputValue(), 'Bo');
    assertNoProblems(problems, [/^HTTP 400 POST \/.*\/workflow$/]);
  } finally {
    await browserContext.close();
  }
});

test.run();
