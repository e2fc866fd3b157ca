import * as assert from 'uvu/assert';
import { call, uniqueId } from '../support/http.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';
import { runPath, startRun } from './support/api.js';
import { assertNoProblems, openUi, screenshot, uiSuite, type UiContext } from './support/uiSuite.js';
import { eventually } from '../support/eventually.js';

/*
 * The viewer with API keys (docs/ui.md, docs/security.md): it offers only the actions the key's scopes allow and says
 * why the others are missing; when the server refuses one anyway (the key changed meanwhile), it shows the refusal.
 */
const dashboard = testKey('dashboard', ['read']);
const operator = testKey('operator', ['read', 'start', 'control']);
const keyFile = new TestKeyFile([dashboard, operator]);
const test = uiSuite('UI: what a key may do', { API_KEYS_FILE: keyFile.path });
test.after(() => keyFile.remove());

async function openAs(context: UiContext, key: TestKey, path: string) {
  const opened = await openUi(context, path);
  await opened.page.getByRole('dialog', { name: 'API token' }).getByLabel('Token').fill(key.secret);
  await opened.page.getByRole('button', { name: 'Use token' }).click();
  return opened;
}

test('a read-only key sees no actions and is told why; a key with control and start sees them all', async (context) => {
  const ids = await startRun(context.api, 'awaits_feedback', {}, uniqueId('scopes'), operator.headers);
  const readOnly = await openAs(context, dashboard, runPath(ids));
  try {
    const { page } = readOnly;
    const why = page.locator('.missing-actions');
    await why.waitFor();
    assert.match(await why.textContent() ?? '', /API key "dashboard" \(scopes: read\) cannot change runs here: stop, terminate, feedback and reset need the "control" scope; rerun needs the "start" scope\./);
    for (const name of ['Stop…', 'Terminate…', 'Rerun…', 'Send feedback…']) assert.is(await page.getByRole('button', { name }).count(), 0, name);
    await screenshot(page, 'read-only-key');
    await page.getByRole('link', { name: 'Start a run' }).first().click();
    const cannot = page.locator('.cannot-start');
    await cannot.waitFor();
    assert.match(await cannot.textContent() ?? '', /API key "dashboard" \(scopes: read\) cannot start runs: that needs the "start" scope\./);
    assert.ok(await page.getByRole('button', { name: 'Start run' }).isDisabled());
    assertNoProblems(readOnly.problems, [/^HTTP 401 GET \//]);
  } finally {
    await readOnly.context.close();
  }
  const full = await openAs(context, operator, runPath(ids));
  try {
    const { page } = full;
    for (const name of ['Stop…', 'Terminate…', 'Rerun…', 'Send feedback…']) await page.getByRole('button', { name }).first().waitFor();
    assert.is(await page.locator('.missing-actions').count(), 0);
    assertNoProblems(full.problems, [/^HTTP 401 GET \//]);
  } finally {
    await full.context.close();
    await call(context.api, 'POST', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/terminate`, { json: {}, headers: operator.headers });
  }
});

test('an action the server refuses (the key lost its scope meanwhile) shows the refusal naming the scope', async (context) => {
  const ids = await startRun(context.api, 'awaits_feedback', {}, uniqueId('refused'), operator.headers);
  const opened = await openAs(context, operator, runPath(ids));
  const { page } = opened;
  try {
    await page.getByRole('button', { name: 'Stop…' }).waitFor();
    // The operator's control is revoked in the key file, which the server reads again on change.
    keyFile.write([dashboard, testKeyWith(operator, ['read', 'start'])]);
    await eventually('the key file to be read again', async () => (await call(context.api, 'GET', '/auth/key', { headers: operator.headers })).body.can?.control === false, {
      timeoutMs: 10_000,
      intervalMs: 50,
    });
    await page.getByRole('button', { name: 'Stop…' }).click();
    await page.getByRole('button', { name: 'Stop run' }).click();
    const refusal = page.locator('.notice.error', { hasText: /^Refused: ForbiddenError: / });
    await refusal.waitFor();
    assert.match(await refusal.textContent() ?? '', /API key "operator" lacks the "control" scope/);
    const status = await call(context.api, 'GET', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/status`, { headers: operator.headers });
    assert.is(status.body.status, 'running', 'nothing reached the run');
    assertNoProblems(opened.problems, [/^HTTP 401 GET \//, /^HTTP 403 PATCH \//]);
  } finally {
    await opened.context.close();
    keyFile.write([dashboard, operator]);
    // Once the file is read again, the operator ends the run it left open.
    // Best effort: a failure above is the one to report.
    await eventually(
      'the operator to end the run it left open',
      async () => (await call(context.api, 'POST', `/workflow/${encodeURIComponent(ids.workflowId)}/runs/${ids.runId}/terminate`, { json: {}, headers: operator.headers })).status !== 403,
      { timeoutMs: 10_000, intervalMs: 50 },
    ).catch(() => {});
  }
});

/** The same secret with other scopes: the key rotated in place, as an operator edits the file. */
function testKeyWith(key: TestKey, scopes: string[]): TestKey {
  return { ...key, entry: { ...key.entry, scopes } };
}

test.run();
