import * as assert from 'uvu/assert';
import { call, uniqueId } from '../support/http.js';
import { TestKeyFile, testKey } from '../support/keyFiles.js';
import { runPath, startRun } from './support/api.js';
import { assertNoProblems, openUi, screenshot, uiSuite } from './support/uiSuite.js';

/** Who did what (docs/security.md): the run page says which API key started the run and which made each change. */
const starter = testKey('nightly-ci', ['start', 'read']);
const operator = testKey('on-call', ['read', 'control']);
const keyFile = new TestKeyFile([starter, operator]);
const test = uiSuite('UI: who did what', { API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

test('the run page names the key that started the run and the key of each change; the runs list its starter', async (context) => {
  const ids = await startRun(context.api, 'awaits_feedback', {}, uniqueId('who'), starter.headers);
  const stopped = await call(context.api, 'PATCH', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/stop`, { headers: operator.headers });
  assert.is(stopped.status, 200, stopped.text);
  const { page, context: browserContext, problems } = await openUi(context, runPath(ids));
  try {
    await page.getByRole('dialog', { name: 'API token' }).getByLabel('Token').fill(operator.secret);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.locator('.started-by-fact dd', { hasText: 'nightly-ci' }).waitFor();
    const cancel = page.locator('tr[data-type="workflow_cancel_requested"] td.identity');
    await cancel.waitFor();
    assert.is(await cancel.textContent(), 'on-call');
    assert.is(await page.locator('tr[data-type="workflow_started"] td.identity').textContent(), 'nightly-ci');
    await screenshot(page, 'who-did-what');

    await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: ids.workflowId, exact: true }) });
    await row.waitFor();
    assert.is(await row.locator('td').last().textContent(), 'nightly-ci');
    assertNoProblems(problems, [/^HTTP 401 GET \//]);
  } finally {
    await browserContext.close();
  }
});

test.run();
