import * as assert from 'uvu/assert';
import { contractSuite, expectError, expectStatus, http, keys } from '../support/contract.js';

/** GET /workflow/list */
const test = contractSuite('GET /workflow/list');

test('the default catalog: {workflows: [{name, description}]} with its workflows only', async ({ api }) => {
  const response = await http(api, 'GET', '/workflow/list');
  expectStatus(response, 200);
  assert.equal(keys(response.body), ['workflows']);
  const names = response.body.workflows.map((workflow: { name: string }) => workflow.name);
  for (const name of ['echo', 'arithmetic', 'fails_in_step', 'sleeper', 'awaits_feedback', 'countdown', 'parent']) {
    assert.ok(names.includes(name), `${name} listed`);
  }
  assert.not.ok(names.includes('other_only'), 'workflows of other catalogs are not listed');
  assert.not.ok(names.includes('idle_only'));
  assert.is(new Set(names).size, names.length, 'names are unique');
  for (const workflow of response.body.workflows) {
    assert.equal(keys(workflow), ['description', 'name']);
    assert.type(workflow.description, 'string');
  }
  const echo = response.body.workflows.find((workflow: { name: string }) => workflow.name === 'echo');
  assert.is(echo.description, 'Returns its input through one step');
});

test('?catalog= lists that catalog', async ({ api }) => {
  const response = await http(api, 'GET', '/workflow/list?catalog=other');
  expectStatus(response, 200);
  assert.equal(response.body, { workflows: [{ name: 'other_only', description: 'Lives in the other catalog' }] });
  const ignored = await http(api, 'GET', '/workflow/list?catalog=other&cacheBuster=123');
  assert.equal(ignored.body, response.body, 'unknown query parameters are ignored');
  const main = await http(api, 'GET', '/workflow/list?catalog=main');
  assert.equal(main.body, (await http(api, 'GET', '/workflow/list')).body, 'main is the default catalog');
});

test('an unknown catalog: 404 CatalogNotAvailableError', async ({ api }) => {
  expectError(await http(api, 'GET', '/workflow/list?catalog=nowhere'), 404, 'CatalogNotAvailableError', { workflowId: null });
});

test('a known catalog without a worker: its workflows, or 503 with Retry-After', async ({ api }) => {
  const response = await http(api, 'GET', '/workflow/list?catalog=idle');
  if (response.status === 200) {
    assert.equal(response.body, { workflows: [{ name: 'idle_only', description: 'Lives in a catalog without a running worker' }] });
  } else {
    expectError(response, 503, 'CatalogNotAvailableError');
    assert.match(response.headers['retry-after'] ?? '', /^\d+$/);
  }
});

test('an empty catalog name is 400', async ({ api }) => {
  expectError(await http(api, 'GET', '/workflow/list?catalog='), 400, 'ValidationError');
});

test.run();
