import * as assert from 'uvu/assert';
import { engineUnderTest } from '../support/engines.js';
import { call, uniqueId } from '../support/http.js';
import { runPath, runToEnd, startRun } from './support/api.js';
import { openUi, screenshot, uiSuite } from './support/uiSuite.js';
import { eventually } from '../support/eventually.js';

/** The runs list (/ui, /ui/runs) in Chromium, against a real API on the engine under test. */
const test = uiSuite('UI: the runs list');

test('shows the runs started through the API, each linking to its stable page /ui/runs/{id}/{rid}', async (context) => {
  const prefix = uniqueId('listed');
  const started = [
    await runToEnd(context.api, 'ui_pipeline', { topic: 'invoices', pages: 1, pageMs: 0 }, `${prefix}-pipeline`),
    await runToEnd(context.api, 'fails_in_step', { reason: 'over budget' }, `${prefix}-fails`),
    await startRun(context.api, 'sleeper', { ms: 600_000 }, `${prefix}-sleeps`),
  ];
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui');
  try {
    for (const [ids, status] of [[started[0]!, 'completed'], [started[1]!, 'failed'], [started[2]!, 'running']] as const) {
      const row = page.locator('tbody tr', { has: page.getByRole('link', { name: ids.workflowId, exact: true }) });
      await row.waitFor();
      assert.is((await row.locator('.badge').textContent())?.trim(), status, ids.workflowId);
      assert.is(await row.locator('code.run-id').textContent(), ids.runId, 'the run id whole');
    }
    await screenshot(page, 'runs-list');
    await page.getByRole('link', { name: started[0]!.workflowId, exact: true }).click();
    await page.waitForURL(`${context.ui}${runPath(started[0]!)}`);
    await page.getByRole('heading', { level: 1, name: started[0]!.workflowId }).waitFor();
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(started[2]!.workflowId)}/runs/${started[2]!.runId}/terminate`, { json: {} });
  }
});

test('filters and pages as GET /workflow/runs does, with the filters kept in the URL', async (context) => {
  const prefix = uniqueId('paged');
  for (let index = 0; index < 12; index += 1) await runToEnd(context.api, 'echo', { message: `m${index}` }, `${prefix}-${String(index).padStart(2, '0')}`);
  const failed = await runToEnd(context.api, 'fails_in_step', { reason: 'filtered out' }, `${prefix}-failed`);
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui');
  try {
    await page.getByLabel('Workflow', { exact: true }).fill('echo');
    await page.getByLabel('Page size').selectOption('10');
    await page.waitForURL(/workflowName=echo/);
    assert.match(page.url(), /limit=10/);
    const rows = page.locator('tbody tr');
    await assertRowCount(rows, 10);
    const firstPage = await rows.locator('td:first-child').allTextContents();
    assert.equal([...new Set(await rows.locator('td:nth-child(3)').allTextContents())], ['echo'], 'only the workflow filtered on');
    assert.not.ok(firstPage.includes(failed.workflowId), 'another workflow is filtered out');
    await page.getByRole('button', { name: 'Older →' }).click();
    await page.locator('tbody tr td').first().filter({ hasNotText: firstPage[0]! }).waitFor();
    const secondPage = await rows.locator('td:first-child').allTextContents();
    assert.ok(secondPage.length >= 2);
    assert.not.ok(secondPage.some((id) => firstPage.includes(id)), 'the next page has other runs');
    await page.getByRole('button', { name: '← Newer' }).click();
    await page.locator('tbody tr td').first().filter({ hasText: firstPage[0]! }).waitFor();
    await page.getByLabel('Status').selectOption('failed');
    await page.getByLabel('Workflow', { exact: true }).fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: failed.workflowId, exact: true }).waitFor();
    const statuses = await page.locator('tbody tr .badge').allTextContents();
    assert.ok(statuses.length > 0 && statuses.every((status) => status === 'failed'), statuses.join());
    assert.match(page.url(), /status=failed/);
    await page.getByLabel('Quick filter').fill(prefix);
    assert.is(await page.locator('tbody tr:not([hidden])').count(), 1, 'the quick filter narrows the loaded rows');
    // The filtered view is a link: opened anew, it shows the same runs.
    const again = await browserContext.newPage();
    await again.goto(page.url());
    await again.getByRole('link', { name: failed.workflowId, exact: true }).waitFor();
    assert.is(await again.getByLabel('Status').inputValue(), 'failed');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('live refresh: a run started after the page loaded appears, without a reload', async (context) => {
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui&workflowName=ui_ticket');
  try {
    await page.getByRole('status').filter({ hasText: /runs on this page|No runs/ }).waitFor();
    await page.evaluate('window.notReloaded = true');
    const ids = await runToEnd(context.api, 'ui_ticket', { title: 'Live one', priority: 'low', estimateHours: 1, urgent: false, owner: { name: 'Ann' } });
    await page.getByRole('link', { name: ids.workflowId, exact: true }).waitFor({ timeout: 15_000 });
    assert.is(await page.evaluate('window.notReloaded'), true, 'the same page, not a reload');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('keyboard: Tab reaches a run and Enter opens it, with focus on the run\'s heading', async (context) => {
  const ids = await runToEnd(context.api, 'echo', { message: 'by keyboard' }, uniqueId('keyboard'));
  const { page, context: browserContext, problems } = await openUi(context, `runs?catalog=ui&workflowName=echo`);
  try {
    await page.getByRole('link', { name: ids.workflowId, exact: true }).waitFor();
    let reached = false;
    for (let presses = 0; presses < 60 && !reached; presses += 1) {
      await page.keyboard.press('Tab');
      reached = (await page.evaluate<string>("document.activeElement?.textContent ?? ''")) === ids.workflowId;
    }
    assert.ok(reached, 'the run link is reachable with Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${context.ui}${runPath(ids)}`);
    await page.locator('h1:focus', { hasText: ids.workflowId }).waitFor();
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
  }
});

test('live refresh leaves the keyboard focus on the run link it was on', async (context) => {
  const ids = await startRun(context.api, 'sleeper', { ms: 600_000 }, uniqueId('focused'));
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui&workflowName=sleeper');
  try {
    const link = page.getByRole('link', { name: ids.workflowId, exact: true });
    await link.focus();
    // A running run is drawn again on every refresh (its duration moves on): wait until this link was replaced.
    const focused = await link.elementHandle();
    await page.waitForFunction((element) => !element?.isConnected, focused, { timeout: 15_000 });
    assert.is(await page.evaluate<string>("document.activeElement?.textContent ?? ''"), ids.workflowId, 'the new link has the focus');
    assert.equal(problems, []);
  } finally {
    await browserContext.close();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/terminate`, { json: {} });
  }
});

// Starting 1,000 runs takes a few seconds on the embedded engine and minutes of a 2-core machine on the Temporal dev
// server; the page's code is the same on both, so the check runs on the embedded engine (bench/ui.ts measures it).
if (engineUnderTest() !== 'temporal') {
  test('1,000 runs: the list renders every one, and the quick filter narrows them', async (context) => {
    const prefix = uniqueId('bulk');
    const ids = Array.from({ length: 1000 }, (_, index) => `${prefix}-${String(index).padStart(4, '0')}`);
    for (let start = 0; start < ids.length; start += 50) {
      await Promise.all(ids.slice(start, start + 50).map((workflowId) => startRun(context.api, 'echo', { message: workflowId }, workflowId)));
    }
    const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui&workflowName=echo&limit=1000');
    try {
      const rows = page.locator('tbody tr');
      await assertRowCount(rows, 1000);
      const shown = new Set(await rows.locator('td:first-child').allTextContents());
      assert.ok(ids.every((id) => shown.has(id)), 'every run started is listed');
      await page.getByLabel('Quick filter').fill(`${prefix}-00`);
      assert.is(await page.locator('tbody tr:not([hidden])').count(), 100);
      assert.match(await page.locator('.summary').textContent() ?? '', /1000 runs on this page \(100 match the quick filter\)/);
      await page.getByLabel('Quick filter').fill('');
      assert.is(await page.locator('tbody tr:not([hidden])').count(), 1000);
      assert.equal(problems, []);
    } finally {
      await browserContext.close();
    }
  });
}

async function assertRowCount(rows: import('playwright-core').Locator, count: number): Promise<void> {
  let shown = 0;
  await eventually(() => `${count} rows to be shown (${shown} were)`, async () => (shown = await rows.count()) === count, { timeoutMs: 15_000, intervalMs: 50 });
}

test.run();
