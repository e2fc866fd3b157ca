import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { call, uniqueId } from '../support/http.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';
import { assertNoProblems, openUi, screenshot, uiSuite, type UiContext } from './support/uiSuite.js';
import { eventually } from '../support/eventually.js';
import { holdAnswers } from './support/heldAnswers.js';

/*
 * The schedules pages (docs/ui.md, docs/schedules.md): a schedule created through the API is listed and has its
 * page, whose Pause, Unpause and Trigger now show the new state; a triggered run links back to its schedule; a
 * read-only key sees no actions and is told why. Every schedule is deleted in a finally: on Temporal a schedule
 * outlives the test server.
 */
const dashboard = testKey('dashboard', ['read']);
const operator = testKey('operator', ['read', 'start', 'control']);
const keyFile = new TestKeyFile([dashboard, operator]);
const test = uiSuite('UI: schedules', { API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function openAs(context: UiContext, key: TestKey, path: string, options: Parameters<typeof openUi>[2] = {}) {
  const opened = await openUi(context, path, options);
  await opened.page.getByRole('dialog', { name: 'API token' }).getByLabel('Token').fill(key.secret);
  await opened.page.getByRole('button', { name: 'Use token' }).click();
  return opened;
}

async function withSchedule(context: UiContext, body: Record<string, unknown>, use: (scheduleId: string) => Promise<void>): Promise<void> {
  const scheduleId = uniqueId('ui-schedule');
  const created = await call(context.api, 'POST', '/schedules', { json: { scheduleId, workflowName: 'echo', input: { message: 'x' }, spec: { every: '2s' }, ...body }, headers: operator.headers });
  assert.is(created.status, 201, created.text);
  try {
    await use(scheduleId);
  } finally {
    const deleted = await call(context.api, 'DELETE', `/schedules/${scheduleId}`, { headers: operator.headers });
    assert.ok(deleted.status === 204 || deleted.status === 404, `delete ${scheduleId}: ${deleted.status} ${deleted.text}`);
  }
}

async function schedule(context: UiContext, scheduleId: string): Promise<any> {
  const response = await call(context.api, 'GET', `/schedules/${scheduleId}`, { headers: operator.headers });
  assert.is(response.status, 200, response.text);
  return response.body;
}

/** Polls what the page shows until `holds` says yes. */
async function until(what: string, probe: () => Promise<string | null>, holds: (text: string) => boolean, timeoutMs = 20_000): Promise<string> {
  let text = '';
  return eventually(
    () => `${what}; last seen: ${JSON.stringify(text)}`,
    async () => {
      text = (await probe()) ?? '';
      return holds(text) && text;
    },
    { timeoutMs, intervalMs: 100 },
  );
}

const fact = (page: Page, className: string) => page.locator(`.facts .${className} dd`);

test('a schedule is listed and has its page: pause shows it paused with no next fires, trigger starts a run that links back, unpause', async (context) => {
  await withSchedule(context, {}, async (scheduleId) => {
    const opened = await openAs(context, operator, '');
    const { page } = opened;
    try {
      await page.getByRole('link', { name: 'Schedules', exact: true }).first().click();
      // GET /schedules reads Temporal's visibility store, which shows a new schedule a moment later: the page reads
      // the list again every few seconds.
      const row = page.locator('.schedules-table tbody tr', { has: page.getByRole('link', { name: scheduleId, exact: true }) });
      await row.waitFor();
      const cells = await row.locator('td').allTextContents();
      assert.equal(cells.slice(1, 5), ['echo', 'every 2s', 'UTC', 'active']);
      // The last run it started links to that run's page (the first fire may come a moment after the row).
      const lastRun = row.locator('td').nth(6).getByRole('link');
      await lastRun.waitFor();
      assert.match(await lastRun.getAttribute('href') ?? '', new RegExp(`/ui/runs/${scheduleId}-\\d{4}-\\d\\d-\\d\\dT\\d\\d%3A\\d\\d%3A\\d\\dZ/[^/]+$`));
      await screenshot(page, 'schedules-list');

      await row.getByRole('link', { name: scheduleId, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: scheduleId }).waitFor();
      await page.locator('.next-fires li').nth(9).waitFor();
      assert.is(await page.locator('.next-fires li').count(), 10);
      assert.is(await fact(page, 'spec-fact').textContent(), 'every 2s');
      assert.is(await fact(page, 'created-by-fact').textContent(), 'operator');
      assert.is(await page.locator('.status-line .badge').textContent(), 'active');

      await page.getByRole('button', { name: 'Pause…', exact: true }).click();
      await page.getByRole('dialog', { name: 'Pause this schedule?' }).getByLabel('Note (optional)').fill('maintenance window');
      await page.getByRole('button', { name: 'Pause schedule' }).click();
      await page.locator('.status-line .badge', { hasText: 'paused' }).waitFor();
      assert.is(await page.locator('.next-fires-none').textContent(), 'None while the schedule is paused.');
      assert.is(await page.locator('.next-fires li').count(), 0);
      assert.is(await page.locator('.status-line .schedule-note').textContent(), 'maintenance window');
      assert.is(await page.getByRole('button', { name: 'Pause…', exact: true }).count(), 0);
      await page.getByRole('status').filter({ hasText: `Schedule ${scheduleId} paused.` }).waitFor();
      await screenshot(page, 'schedule-paused');

      // A fire already handed over when the pause came may still start; after that only the trigger starts one.
      await sleep(2500);
      const before = (await schedule(context, scheduleId)).actionCount as number;
      await page.getByRole('button', { name: 'Trigger now…', exact: true }).click();
      await page.getByRole('button', { name: 'Trigger now', exact: true }).click();
      await until('the triggered run counted', () => fact(page, 'action-count-fact').textContent(), (text) => Number.parseInt(text, 10) > before);
      const newest = page.locator('.recent-actions tbody tr').first().getByRole('link');
      const triggered = (await schedule(context, scheduleId)).recentActions.at(-1);
      assert.is(await newest.textContent(), triggered.workflowId);
      assert.ok(triggered.workflowId.startsWith(`${scheduleId}-`), triggered.workflowId);

      await newest.click();
      const back = fact(page, 'schedule-fact').getByRole('link', { name: scheduleId, exact: true });
      await back.waitFor();
      assert.ok((await back.getAttribute('href'))?.endsWith(`/ui/schedules/${scheduleId}`), 'the run page links its schedule');
      await back.click();
      await page.getByRole('heading', { level: 1, name: scheduleId }).waitFor();

      await page.getByRole('button', { name: 'Unpause…', exact: true }).click();
      await page.getByRole('button', { name: 'Unpause schedule' }).click();
      await page.locator('.status-line .badge', { hasText: 'active' }).waitFor();
      await page.locator('.next-fires li').nth(9).waitFor();
      assert.is(await page.locator('.next-fires-none').count(), 0);

      // The runs it started, in the runs list filtered by it, each naming it.
      await fact(page, 'action-count-fact').getByRole('link', { name: 'see them' }).click();
      await page.locator('.schedule-filter', { hasText: `Only the runs of schedule ${scheduleId}.` }).waitFor();
      const runRow = page.locator('.runs-table tbody tr', { has: page.getByRole('link', { name: triggered.workflowId, exact: true }) });
      await runRow.waitFor();
      assert.is(await runRow.locator('.schedule-of-run').textContent(), ` schedule ${scheduleId}`);
      assertNoProblems(opened.problems, [/^HTTP 401 GET \//]);
    } finally {
      await opened.context.close();
    }
  });
});

test('a read-only key sees the schedule but no Pause or Trigger now, and is told why', async (context) => {
  await withSchedule(context, { paused: true, note: 'created paused' }, async (scheduleId) => {
    const opened = await openAs(context, dashboard, `schedules/${scheduleId}`);
    const { page } = opened;
    try {
      const why = page.locator('.missing-actions');
      await why.waitFor();
      assert.is(await why.textContent(), 'API key "dashboard" (scopes: read) cannot change schedules here: pause, unpause and trigger need the "control" scope.');
      for (const name of ['Pause…', 'Unpause…', 'Trigger now…']) assert.is(await page.getByRole('button', { name, exact: true }).count(), 0, name);
      assert.is(await page.locator('.status-line .badge').textContent(), 'paused');
      assert.is(await page.locator('.next-fires-none').textContent(), 'None while the schedule is paused.');
      await screenshot(page, 'schedule-read-only-key');
      assertNoProblems(opened.problems, [/^HTTP 401 GET \//]);
    } finally {
      await opened.context.close();
    }
  });
});

test('an action on a schedule deleted meanwhile shows the API\'s 404 as it said it', async (context) => {
  await withSchedule(context, { paused: true }, async (scheduleId) => {
    const opened = await openAs(context, operator, `schedules/${scheduleId}`);
    const { page } = opened;
    try {
      await page.getByRole('button', { name: 'Unpause…', exact: true }).waitFor();
      const deleted = await call(context.api, 'DELETE', `/schedules/${scheduleId}`, { headers: operator.headers });
      assert.is(deleted.status, 204, deleted.text);
      await page.getByRole('button', { name: 'Unpause…', exact: true }).click();
      const refused = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith(`/schedules/${scheduleId}/unpause`));
      await page.getByRole('button', { name: 'Unpause schedule' }).click();
      assert.is((await refused).status(), 404);
      const error = page.locator('.notice.error', { hasText: /^ScheduleNotFoundError: / });
      await error.waitFor();
      assert.match(await error.textContent() ?? '', new RegExp(scheduleId));
      assertNoProblems(opened.problems, [/^HTTP 401 GET \//, /^HTTP 404 (POST|GET) \/.*\/schedules\//]);
    } finally {
      await opened.context.close();
    }
  });
});

test('a schedule page left before its first read arrived reads the schedule no more', async (context) => {
  await withSchedule(context, { paused: true }, async (scheduleId) => {
    const opened = await openAs(context, operator, 'schedules');
    const { page } = opened;
    try {
      const scheduleLink = page.getByRole('link', { name: scheduleId, exact: true });
      await scheduleLink.waitFor();
      const reads = new RegExp(`/schedules/${scheduleId}$`);
      let readsSent = 0;
      page.on('request', (request) => {
        if (request.method() === 'GET' && reads.test(request.url())) readsSent += 1;
      });
      const slowRead = await holdAnswers(page, reads);
      await scheduleLink.click();
      await page.getByRole('heading', { level: 1, name: scheduleId }).waitFor();
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs' }).click();
      await page.getByRole('heading', { level: 1, name: 'Runs' }).waitFor();
      slowRead.release();
      await eventually('the schedule\'s read to be answered', () => slowRead.answered() === 1);
      // Longer than the page's refresh (every 5 s): a refresher started for the page left would have read again.
      await sleep(6_500);
      assert.is(readsSent, 1, 'only the read that was out when the page was left');
      assertNoProblems(opened.problems, [/^HTTP 401 GET \//]);
    } finally {
      await opened.context.close();
    }
  });
});

test('the schedule pages at 200 % zoom: nothing scrolls sideways, every control has a name', async (context) => {
  await withSchedule(context, { spec: { cron: ['30 2 * * *', '0 12 * * 1'], timezone: 'Europe/Berlin' } }, async (scheduleId) => {
    // A 1280 × 800 window at 200 % zoom lays out as 640 × 400 CSS pixels.
    const opened = await openAs(context, operator, `schedules/${scheduleId}`, { viewport: { width: 640, height: 400 } });
    const { page } = opened;
    try {
      await page.getByRole('button', { name: 'Pause…', exact: true }).waitFor();
      assert.is(await fact(page, 'spec-fact').textContent(), '30 2 * * *; 0 12 * * 1');
      assert.is(await page.locator('.next-fires li').count(), 10);
      for (const path of [`schedules/${scheduleId}`, 'schedules']) {
        await page.goto(`${context.ui}${path}`);
        await page.locator(path === 'schedules' ? '.schedules-table tbody tr' : '.next-fires li').first().waitFor();
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        assert.ok(overflow <= 0, `${path}: the page is ${overflow} px wider than the window`);
        const unnamed = await page.evaluate<string[]>(`[...document.querySelectorAll('input, select, textarea, button, a[href]')]
          .filter((control) => !((control.labels?.length ?? 0) > 0 || control.getAttribute('aria-label') || control.getAttribute('aria-labelledby') || control.textContent.trim()))
          .map((control) => control.outerHTML.slice(0, 120))`);
        assert.equal(unnamed, [], `${path}: every control has an accessible name`);
      }
      assertNoProblems(opened.problems, [/^HTTP 401 GET \//]);
    } finally {
      await opened.context.close();
    }
  });
});

test.run();
