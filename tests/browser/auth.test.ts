import * as assert from 'uvu/assert';
import { call, uniqueId } from '../support/http.js';
import { runPath } from './support/api.js';
import { assertNoProblems, openUi, screenshot, uiSuite } from './support/uiSuite.js';
import { eventually } from '../support/eventually.js';

/** With API_AUTH_TOKEN set: the page's files are public, its data is not; the token is asked for once per tab. */
const TOKEN = 'ui-suite-token-7f3a9c';
const test = uiSuite('UI: the token prompt', { API_AUTH_TOKEN: TOKEN });
const authorized = { authorization: `Bearer ${TOKEN}` };

test('the token prompt guards the data: nothing is shown until the API accepts the token', async (context) => {
  const started = await call(context.api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId: uniqueId('guarded'), input: { message: 'secret' } }, headers: authorized });
  assert.is(started.status, 200);
  const { page, context: browserContext, problems } = await openUi(context, 'runs?catalog=ui');
  try {
    const prompt = page.getByRole('dialog', { name: 'API token' });
    await prompt.waitFor();
    assert.is(await page.locator('tbody tr').count(), 0, 'no run is shown before the token');
    await screenshot(page, 'token-prompt');
    // The page's own files came without a token; its data call was refused.
    const seen = context.proxy.requests.map((request) => `${request.method} ${request.url.replace(/\?.*$/, '')} ${request.authorization ? 'with token' : 'without'}`);
    assert.ok(seen.some((line) => /GET \/behind\/a\/proxy\/ui\/assets\/app-\w+\.js without/.test(line)), seen.join('\n'));
    assert.ok(seen.some((line) => line === 'GET /behind/a/proxy/workflow/runs without'), seen.join('\n'));

    // Cancelled: the API's 401, as it said it, and no prompt again by itself (the live refresh goes on refused).
    await prompt.getByRole('button', { name: 'Cancel' }).click();
    await page.locator('.notice.error', { hasText: /^UnauthorizedError: / }).waitFor();
    const listCalls = () => context.proxy.requests.filter((request) => request.url.startsWith('/behind/a/proxy/workflow/runs')).length;
    const afterCancel = listCalls();
    await waitUntil(() => listCalls() > afterCancel);
    assert.is(await prompt.count(), 0, 'a cancelled prompt does not come back by itself');
    assert.is(await page.locator('tbody tr').count(), 0);

    // Asked for again; a wrong token is refused and asked for again; the right one shows the runs.
    await page.getByRole('button', { name: 'Enter token' }).click();
    await prompt.getByLabel('Token').fill('not-the-token');
    await prompt.getByRole('button', { name: 'Use token' }).click();
    await prompt.getByText('The API refused that token').waitFor();
    await prompt.getByLabel('Token').fill(TOKEN);
    await prompt.getByRole('button', { name: 'Use token' }).click();
    await page.getByRole('link', { name: started.body.workflowId, exact: true }).waitFor();
    assert.is(await prompt.count(), 0);
    // Only the refused attempts answered 401 (logged by the browser as failed loads); nothing else failed.
    assertNoProblems(problems, [/^HTTP 401 GET \//]);
  } finally {
    await browserContext.close();
  }
});

test('the token is kept for the tab only: never in a URL, a cookie or a log; other tabs ask again; it can be forgotten', async (context) => {
  const ids = await call(context.api, 'POST', '/workflow/run', { json: { workflowName: 'echo', workflowId: uniqueId('kept'), input: { message: 'tab' } }, headers: authorized });
  const before = context.proxy.requests.length;
  const { page, context: browserContext } = await openUi(context, runPath(ids.body));
  try {
    await page.getByRole('dialog', { name: 'API token' }).getByLabel('Token').fill(TOKEN);
    await page.getByRole('button', { name: 'Use token' }).click();
    await page.locator('.status-line .badge.status-completed').waitFor();
    // Moving around the UI asks no more.
    await page.getByRole('link', { name: 'Runs', exact: true }).first().click();
    await page.getByRole('link', { name: ids.body.workflowId, exact: true }).waitFor();
    assert.is(await page.getByRole('dialog').count(), 0);
    assert.is(await page.evaluate("sessionStorage.getItem('flowgate.apiToken')"), TOKEN);
    assert.is(await page.evaluate('localStorage.length'), 0);
    assert.equal(await browserContext.cookies(), []);
    const sent = context.proxy.requests.slice(before);
    assert.ok(sent.some((request) => request.authorization === `Bearer ${TOKEN}`));
    for (const request of sent) {
      assert.not.ok(request.url.includes(TOKEN), `token in URL ${request.url}`);
      assert.is(request.cookie, undefined);
      if (request.authorization !== undefined) assert.is(request.authorization, `Bearer ${TOKEN}`);
    }
    assert.not.ok(JSON.stringify(context.api.logs).includes(TOKEN), 'the token is in no server log line');

    // Another tab has its own session: it asks again.
    const other = await browserContext.newPage();
    await other.goto(`${context.ui}runs`);
    await other.getByRole('dialog', { name: 'API token' }).waitFor();
    await other.close();

    // Forgotten, the next call asks again.
    await page.getByRole('button', { name: 'Forget token' }).click();
    assert.is(await page.evaluate("sessionStorage.getItem('flowgate.apiToken')"), null);
    await page.getByRole('link', { name: 'Start a run', exact: true }).first().click();
    await page.getByRole('dialog', { name: 'API token' }).waitFor();
  } finally {
    await browserContext.close();
  }
});

async function waitUntil(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  await eventually('the page to get there', condition, { timeoutMs, intervalMs: 50 });
}

test.run();
