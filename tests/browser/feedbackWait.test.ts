import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { call, uniqueId } from '../support/http.js';
import { eventually } from '../support/eventually.js';
import { runPath, startRun, waitForRunStatus } from './support/api.js';
import { assertNoProblems, NO_TRACE_ON_TEMPORAL, openUi, screenshot, uiSuite, type UiContext } from './support/uiSuite.js';

/**
 * A run waiting for feedback says so (docs/ui.md): since when, with Send feedback beside it; its timeline draws the
 * wait as a span, on open runs and finished ones; run ids are shown whole and can be copied.
 */
const test = uiSuite('UI: a run waiting for feedback');

const dialog = (page: Page) => page.getByRole('dialog');
const waitingBox = (page: Page) => page.locator('.waiting-for-feedback');
const waitRow = (page: Page) => page.locator('.timeline-row[data-kind="feedback"]');

async function history(context: UiContext, ids: { workflowId: string; runId: string }): Promise<{ type: string; time: string }[]> {
  const response = await call(context.api, 'GET', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/history?pageSize=200`);
  return response.body.events;
}

/**
 * Where the last bar matching `selector` begins and ends, as fractions of its track (the run's time axis). Read in one
 * go in the page: an open run's timeline is drawn again every second, which detaches the bars a locator found.
 */
async function barExtent(page: Page, selector: string): Promise<{ from: number; to: number }> {
  return page.evaluate<{ from: number; to: number }>(`(() => {
    const bars = document.querySelectorAll(${JSON.stringify(selector)});
    const bar = bars[bars.length - 1];
    if (!bar) throw new Error('no bar ' + ${JSON.stringify(selector)});
    const track = bar.parentElement.getBoundingClientRect();
    const box = bar.getBoundingClientRect();
    return { from: (box.left - track.left) / track.width, to: (box.right - track.left) / track.width };
  })()`);
}

test('an open run waiting for feedback: since when, Send feedback beside it, the wait as a span; the reply ends it', async (context) => {
  const ids = await startRun(context.api, 'ui_pipeline', { topic: 'approval', pages: 1, pageMs: 0, awaitApproval: true }, uniqueId('waits'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await waitingBox(page).waitFor();
    const began = (await history(context, ids)).find((event) => event.type === 'feedback_wait_started')!;
    assert.ok(began, 'the history has the wait');
    const since = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(new Date(began.time));
    assert.is(await waitingBox(page).getByRole('status').textContent(), `Waiting for feedback since ${since}.`);
    assert.match(await waitingBox(page).textContent() ?? '', /so far/);
    // The one Send feedback of the page is beside the wait, not in the action bar.
    assert.is(await page.getByRole('button', { name: 'Send feedback…' }).count(), 1);
    assert.is(await page.getByRole('group', { name: 'Run actions' }).getByRole('button', { name: 'Send feedback…' }).count(), 0);

    const wait = waitRow(page);
    assert.is(await wait.getAttribute('data-state'), 'running');
    assert.match(await wait.locator('.row-facts').textContent() ?? '', /^waiting/);
    const summarised = await barExtent(page, '.timeline-row[data-step="summarise_pages"] .bar');
    const waiting = await barExtent(page, '.timeline-row[data-kind="feedback"] .bar.running');
    assert.ok(waiting.from >= summarised.to - 0.01, `the wait begins after the last step: ${JSON.stringify({ summarised, waiting })}`);
    assert.ok(waiting.to > 0.99, 'an open wait runs to now, the end of the axis');
    await screenshot(page, 'run-waiting-for-feedback');

    await waitingBox(page).getByRole('button', { name: 'Send feedback…' }).click();
    await dialog(page).getByLabel('Payload (JSON object)').fill('{"approved": true}');
    await dialog(page).getByRole('button', { name: 'Send feedback' }).click();
    await page.locator('.status-line .badge.status-completed').waitFor();
    await page.locator('tr[data-type="workflow_completed"]').waitFor();
    await waitingBox(page).waitFor({ state: 'hidden' });
    await wait.locator('.bar.completed').waitFor();
    assert.match(await wait.locator('.row-facts').textContent() ?? '', /^answered/);

    // The span ends at the reply: where its time falls on the run's axis.
    const events = await history(context, ids);
    const status = (await call(context.api, 'GET', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/status`)).body;
    const start = Date.parse(status.startedAt);
    const end = Date.parse(status.closedAt);
    const signal = Date.parse(events.find((event) => event.type === 'signal_received')!.time);
    const expected = (signal - start) / (end - start);
    // Read until the page has drawn the closed run (CI once read a frame drawn on a longer axis: 0.972 for 0.997).
    let answered = await barExtent(page, '.timeline-row[data-kind="feedback"] .bar.completed');
    await eventually(
      () => `the bar ends at the reply: at ${answered.to}, the reply at ${expected}`,
      async () => {
        answered = await barExtent(page, '.timeline-row[data-kind="feedback"] .bar.completed');
        return Math.abs(answered.to - expected) < 0.02;
      },
      { timeoutMs: 3_000, intervalMs: 100 },
    );
    assert.ok(answered.to < 0.999 || expected > 0.98, 'not at the run\'s end unless the reply was');
    assertNoProblems(problems);
  } finally {
    await browserContext.close();
  }
});

test('a finished run keeps its wait as a span: one the close ended is drawn to the close', async (context) => {
  const ids = await startRun(context.api, 'awaits_feedback', {}, uniqueId('ended'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await waitingBox(page).waitFor();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/terminate`, { json: { reason: 'no answer' } });
    await waitForRunStatus(context.api, ids, (status) => status === 'terminated');
    await page.reload();
    await page.locator('tr[data-type="workflow_terminated"]').waitFor();
    await waitRow(page).locator('.bar.failed').waitFor();
    assert.is(await waitingBox(page).isHidden(), true);
    assert.match(await waitRow(page).locator('.row-facts').textContent() ?? '', /^ended with the run/);
    const ended = await barExtent(page, '.timeline-row[data-kind="feedback"] .bar.failed');
    assert.ok(ended.to > 0.98, `drawn to the close: ${ended.to}`);
    assert.is(await page.getByRole('button', { name: 'Send feedback…' }).count(), 0, 'nothing to send to a closed run');
    assertNoProblems(problems, [NO_TRACE_ON_TEMPORAL]);
  } finally {
    await browserContext.close();
  }
});

test('run ids are whole: on the run page with a Copy button, and in the runs list', async (context) => {
  const ids = await startRun(context.api, 'awaits_feedback', {}, uniqueId('ids'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await browserContext.grantPermissions(['clipboard-read', 'clipboard-write']);
    const runFact = page.locator('.facts div', { has: page.locator('dt', { hasText: 'Run' }) });
    await runFact.locator('code.run-id').waitFor();
    assert.is(await runFact.locator('code.run-id').textContent(), ids.runId);
    await runFact.getByRole('button', { name: 'Copy run id' }).click();
    await runFact.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.is(await page.evaluate('navigator.clipboard.readText()'), ids.runId);

    await page.goto(`${context.ui}runs?catalog=ui&workflowName=awaits_feedback`);
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: ids.workflowId, exact: true }) });
    await row.waitFor();
    assert.is(await row.locator('code.run-id').textContent(), ids.runId);
    // One click selects the id whole.
    await row.locator('code.run-id').click();
    assert.is(await page.evaluate('String(getSelection())'), ids.runId);
    assertNoProblems(problems);
  } finally {
    await browserContext.close();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/terminate`, { json: {} });
  }
});

test.run();
