import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { call, uniqueId } from '../support/http.js';
import { eventually } from '../support/eventually.js';
import { runPath, runToEnd, startRun, waitForRunStatus } from './support/api.js';
import { holdAnswers } from './support/heldAnswers.js';
import { assertNoProblems, openUi, screenshot, uiSuite, type UiContext } from './support/uiSuite.js';

/** One run's page (/ui/runs/{id}/{rid}) in Chromium: live history, timeline, error, related runs. */
const test = uiSuite('UI: a run');

const pipelineInput = (context: UiContext, extra: Record<string, unknown> = {}) => ({
  topic: 'quarterly invoices',
  pages: 6,
  pageMs: 400,
  probeUrl: `${context.api.baseUrl}/health`,
  flakyToken: uniqueId('flaky'),
  ...extra,
});

const badge = (page: Page) => page.locator('.status-line .badge');
/** A collapsible JSON block by its label (Input, Output, Trace). */
const jsonBlock = (page: Page, label: string) => page.locator(`details.json:has(> summary:text-is("${label}"))`);
const timelineRow = (page: Page, step: string) => page.locator(`.timeline-row[data-step="${step}"]`);

test('follows a live run to its end without a reload: steps, progress and history as they happen', async (context) => {
  // Pages slow enough (6 × 1.5 s) that the page, opened after the start, still sees fetch_pages live however slowly
  // a loaded machine opens it.
  const ids = await startRun(context.api, 'ui_pipeline', pipelineInput(context, { awaitApproval: true, pageMs: 1500 }), uniqueId('live'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await page.evaluate('window.notReloaded = true');
    await page.locator('.connection[data-state="live"]').waitFor();
    assert.is(await badge(page).textContent(), 'running');
    await timelineRow(page, 'fetch_pages').locator('.progress').filter({ hasText: /page: \d, of: 6/ }).waitFor();
    await timelineRow(page, 'summarise_pages').locator('.state.completed').waitFor({ timeout: 60_000 });
    await screenshot(page, 'run-live');
    const feedback = await call(context.api, 'POST', '/workflow/feedback', { json: { workflowId: ids.workflowId, payload: { approved: true } } });
    assert.is(feedback.status, 200);
    await page.locator('.status-line .badge.status-completed').waitFor();
    await page.locator('tr[data-type="workflow_completed"]').waitFor();
    await jsonBlock(page, 'Output').waitFor();
    assert.match(await jsonBlock(page, 'Output').textContent() ?? '', /"approved": true/);
    assert.is(await page.evaluate('window.notReloaded'), true, 'the same page, not a reload');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('the timeline has a bar per attempt of each step, with its duration, retries, cost, tokens and HTTP calls', async (context) => {
  const ids = await runToEnd(context.api, 'ui_pipeline', pipelineInput(context, { pages: 3, pageMs: 300 }), uniqueId('timeline'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await jsonBlock(page, 'Trace').waitFor();
    // The timeline is drawn once the history has loaded too, which can come after the trace.
    await timelineRow(page, 'summarise_pages').waitFor();
    const steps = await page.locator('.timeline-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-step')));
    assert.equal(steps, ['fetch_pages', 'parse_pages', 'summarise_pages']);
    for (const step of steps) {
      const row = timelineRow(page, step!);
      assert.ok((await row.locator('.bar').count()) >= 1, `${step} has a bar`);
      assert.match(await row.locator('.duration').textContent() ?? '', /^\d+(\.\d+)? (ms|s)$/, `${step} says its duration`);
    }
    const fetchSeconds = parseDuration(await timelineRow(page, 'fetch_pages').locator('.duration').textContent());
    assert.ok(fetchSeconds >= 0.85, `fetch_pages took 3 × 300 ms, the timeline says ${fetchSeconds} s`);
    // parse_pages failed its first attempt and succeeded on the second: two bars, the first failed.
    const parse = timelineRow(page, 'parse_pages');
    assert.equal(await parse.locator('.bar').evaluateAll((bars) => bars.map((bar) => bar.classList.contains('failed'))), [true, false]);
    assert.match(await parse.locator('.retries').textContent() ?? '', /2 attempts \(1 retry\)/);
    const fetchFacts = await timelineRow(page, 'fetch_pages').locator('.row-facts').textContent();
    assert.match(fetchFacts ?? '', /1 HTTP call/);
    assert.match(fetchFacts ?? '', /cost 0\.002/);
    const summariseFacts = await timelineRow(page, 'summarise_pages').locator('.row-facts').textContent();
    assert.match(summariseFacts ?? '', /1020 tokens/);
    assert.match(summariseFacts ?? '', /cost 0\.01/);
    // A step chosen on the timeline shows its own input and output.
    await timelineRow(page, 'summarise_pages').getByRole('button', { name: 'summarise_pages' }).click();
    assert.is(await timelineRow(page, 'summarise_pages').getByRole('button').getAttribute('aria-pressed'), 'true');
    await page.getByRole('heading', { name: 'Step summarise_pages' }).waitFor();
    await page.locator('.step-details summary', { hasText: 'Step output' }).click();
    assert.match(await page.locator('.step-details').textContent() ?? '', /3 pages: PAGE 1 ABOUT QUARTERLY INVOICES/);
    await screenshot(page, 'run-timeline');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('a run that failed shows its error: name, message and the step it failed in', async (context) => {
  const ids = await runToEnd(context.api, 'fails_in_step', { reason: 'over budget' }, uniqueId('failed'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    const error = page.getByRole('region', { name: 'Error' });
    await error.waitFor();
    assert.match(await error.textContent() ?? '', /InvoiceRejectedError: invoice rejected: over budget/);
    assert.match(await error.textContent() ?? '', /In step fails_in_step#reject_invoice/);
    assert.is(await badge(page).textContent(), 'failed');
    await timelineRow(page, 'reject_invoice').locator('.state.failed').waitFor();
    await screenshot(page, 'run-failed');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('a dropped connection is resumed with Last-Event-ID: no history event repeated or skipped', async (context) => {
  const ids = await startRun(context.api, 'ui_pipeline', pipelineInput(context, { pages: 1, pageMs: 0, awaitApproval: true }), uniqueId('dropped'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await timelineRow(page, 'summarise_pages').locator('.state.completed').waitFor({ timeout: 30_000 });
    await page.locator('.connection[data-state="live"]').waitFor();
    const resumedBefore = context.proxy.requests.filter((request) => request.lastEventId !== undefined).length;
    context.proxy.dropConnections();
    await page.locator('.connection:not([data-state="live"])').waitFor();
    await page.locator('.connection[data-state="live"]').waitFor();
    const resumed = context.proxy.requests.filter((request) => request.lastEventId !== undefined);
    assert.ok(resumed.length > resumedBefore, 'the stream was opened again with Last-Event-ID');
    assert.match(resumed[resumed.length - 1]!.lastEventId!, /^\d+/);
    await call(context.api, 'POST', '/workflow/feedback', { json: { workflowId: ids.workflowId, payload: { approved: 'after the drop' } } });
    await page.locator('.status-line .badge.status-completed').waitFor();
    await page.locator('tr[data-type="workflow_completed"]').waitFor();
    const shown = await page.locator('tr[data-event-id]').evaluateAll((rows) => rows.map((row) => Number(row.getAttribute('data-event-id'))));
    const history = await call(context.api, 'GET', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/history?pageSize=200`);
    assert.equal(shown, history.body.events.map((event: { eventId: number }) => event.eventId), 'each event once, in order');
    assertNoProblems(problems);
  } finally {
    await browserContext.close();
  }
});

test('child runs and the continue-as-new chain are linked both ways', async (context) => {
  const parent = await runToEnd(context.api, 'parent', { n: 2 }, uniqueId('parent'));
  const { page, context: browserContext, problems } = await openUi(context, runPath(parent));
  try {
    const childLink = page.getByRole('navigation', { name: 'Related runs' }).getByRole('link');
    await childLink.first().waitFor();
    await childLink.first().click();
    const parentLink = page.getByRole('navigation', { name: 'Related runs' }).getByRole('link', { name: parent.workflowId });
    await parentLink.waitFor();
    assert.is(await page.locator('.facts').getByRole('link').first().textContent(), 'arithmetic');
    // The parent is named by its id: /ui/runs/{id} opens its latest run, and the address becomes the pinned one.
    assert.is(await parentLink.getAttribute('href'), `${context.ui}runs/${encodeURIComponent(parent.workflowId)}`);
    await parentLink.click();
    await page.waitForURL(`${context.ui}${runPath(parent)}`);
    await page.locator('.status-line .badge.status-completed').waitFor();

    const chain = await runToEnd(context.api, 'countdown', { n: 2 }, uniqueId('chain'));
    const runs = await call(context.api, 'GET', `/workflow/runs?workflowName=countdown&limit=20`);
    const first = runs.body.runs.filter((run: { workflowId: string }) => run.workflowId === chain.workflowId).find((run: { status: string; runId: string }) => run.status === 'continued_as_new' && run.runId !== chain.runId);
    await page.goto(`${context.ui}${runPath({ workflowId: chain.workflowId, runId: first.runId })}`);
    const next = page.getByRole('navigation', { name: 'Related runs' }).getByRole('link');
    await next.first().waitFor();
    const relatedText = await page.getByRole('navigation', { name: 'Related runs' }).textContent();
    assert.match(relatedText ?? '', /Continued (as new in|from) run/);
    await page.getByRole('navigation', { name: 'Related runs' }).locator('li', { hasText: 'Continued as new in run' }).getByRole('link').click();
    await page.getByRole('navigation', { name: 'Related runs' }).locator('li', { hasText: 'Continued from run' }).waitFor();
    assert.ok(page.url().startsWith(`${context.ui}runs/${encodeURIComponent(chain.workflowId)}/`));
    assert.not.ok(page.url().endsWith(first.runId));
    await waitForRunStatus(context.api, chain, (status) => status === 'completed');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('a run page left before its status arrived opens no history stream afterwards', async (context) => {
  const ids = await startRun(context.api, 'sleeper', { ms: 600_000 }, uniqueId('left'));
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui&workflowName=sleeper');
  try {
    const streams: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.endsWith(`/runs/${ids.runId}/history`)) streams.push(request.url());
    });
    const slowStatus = await holdAnswers(page, /\/runs\/[^/]+\/status$/);
    const runLink = page.getByRole('link', { name: ids.workflowId, exact: true });
    const runsLink = page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' });
    // Three visits, each left while its status read is still out: a stream per visit would be three for no page.
    for (let visit = 0; visit < 3; visit += 1) {
      await runLink.click();
      await page.getByRole('heading', { level: 1, name: ids.workflowId }).waitFor();
      await runsLink.click();
      await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
    }
    slowStatus.release();
    await eventually('the three status reads to be answered', () => slowStatus.answered() === 3);
    // Long enough for a stream to open after the answer (it would open at once).
    await page.waitForTimeout(1_000);
    assert.equal(streams, [], 'no history stream for a page that was left');
    assert.is(await page.title(), 'Runs · flowgate', 'nor its title over the list');
    // A page that stays still follows its run.
    await runLink.click();
    await page.locator('.connection[data-state="live"]').waitFor();
    assert.is(streams.length, 1);
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/terminate`, { json: {} });
  }
});

test('/ui/runs/{id} left before the latest run was found stays on the page the user went to', async (context) => {
  const ids = await runToEnd(context.api, 'echo', { message: 'latest' }, uniqueId('latest-left'));
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui');
  try {
    const slowLatest = await holdAnswers(page, new RegExp(`/workflow/${encodeURIComponent(ids.workflowId)}/status$`));
    await page.goto(`${context.ui}runs/${encodeURIComponent(ids.workflowId)}`);
    await page.getByText('Finding the latest run…').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules' }).click();
    await page.getByRole('heading', { level: 1, name: 'Schedules' }).waitFor();
    slowLatest.release();
    await eventually('the latest run\'s status to be answered', () => slowLatest.answered() === 1);
    // Long enough for the replaced address to show (it would be replaced at once).
    await page.waitForTimeout(1_000);
    assert.is(page.url(), `${context.ui}schedules`, 'not pulled back to the run');
    assert.is(await page.getByRole('heading', { level: 1 }).textContent(), 'Schedules');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

function parseDuration(text: string | null): number {
  const match = /^([\d.]+) (ms|s)$/.exec(text ?? '');
  if (!match) return Number.NaN;
  return match[2] === 'ms' ? Number(match[1]) / 1000 : Number(match[1]);
}

test.run();
