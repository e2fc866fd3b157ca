import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestApi, type TestApi } from '../support/engines.js';
import { expectError, expectNothingStarted, expectStatus, historyEvents, http, runAndWait, start, statusOf, waitUntil, wf } from '../support/contract.js';
import { uniqueId } from '../support/http.js';
import { createPackagedProject, type PackagedProject } from '../fixtures/packages/packagedProject.js';
import { createFixtureProject } from '../support/fixturePackages.js';
import { join } from 'node:path';

/*
 * Workflows from installed packages (docs/packages.md), on the engine under test: a worker
 * project with exposed packages, a package that is not exposed, and local workflows that call packaged ones.
 */
interface Context {
  project: PackagedProject;
  api: TestApi;
  startError?: unknown;
}

const test = suite<Context>('workflows from installed packages', {} as Context);
const CATALOG = 'packaged';

test.before(async (context) => {
  try {
    context.project = await createPackagedProject();
    context.api = await startTestApi({ DEFAULT_CATALOG: CATALOG }, {
      catalogs: [{ catalog: CATALOG, modules: context.project.localModules, projectDir: context.project.dir }],
    });
  } catch (error) {
    context.startError = error;
  }
});
test.before.each((context) => {
  if (context.startError !== undefined) throw context.startError;
});
test.after(async (context) => {
  await context.api?.close();
  await context.project?.remove();
});

test('GET /workflow/list shows local and packaged workflows with their descriptions, and nothing of a package that is not exposed', async ({ api }) => {
  const response = await http(api, 'GET', `/workflow/list?catalog=${CATALOG}`);
  expectStatus(response, 200);
  const listed = new Map<string, string>(response.body.workflows.map((entry: { name: string; description: string }) => [entry.name, entry.description]));
  assert.equal([...listed.keys()].sort(), [
    'chores.grumble',
    'chores.linger',
    'chores.tidy',
    'local.grumbleAsChild',
    'local.lingerAsChild',
    'local.tidy',
    'local.tidyAsChild',
    'textTools.headline',
    'textTools.stats',
  ]);
  assert.is(listed.get('textTools.stats'), 'Counts the words and sentences of a text');
  assert.is(listed.get('chores.tidy'), 'Tidies a text with the normalise step');
});

test('a packaged workflow runs by name through POST /workflow/run, its steps as steps (the example package)', async ({ api }) => {
  const stats = await runAndWait(api, { workflowName: 'textTools.stats', input: { text: 'One two three. Four!' } });
  assert.is(stats.status, 'completed');
  assert.equal(stats.output, { words: 4, sentences: 2 });
  const headline = await runAndWait(api, { workflowName: 'textTools.headline', input: { text: 'workflows from packages just run', maxWords: 3 } });
  assert.equal(headline.output, { headline: 'Workflows From Packages' });
  const events = await historyEvents(api, headline.workflowId);
  const scheduled = events.filter((event) => event.type === 'step_scheduled');
  assert.equal(scheduled.map((event) => event.stepName), ['textTools.titleCase']);
});

test('a packaged workflow validates its input like a local one: 400, nothing started', async ({ api }) => {
  const workflowId = uniqueId('bad-input');
  const response = await http(api, 'POST', '/workflow/run', { json: { workflowName: 'textTools.headline', workflowId, input: { text: '' } } });
  expectError(response, 400, 'ValidationError', { maybeWorkflowId: workflowId });
  await expectNothingStarted(api, workflowId, 'textTools.headline');
});

test('a workflow of a package that is not exposed: 404 WorkflowNotFoundError before anything starts', async ({ api }) => {
  const workflowId = uniqueId('hidden');
  for (const path of ['/workflow', '/workflow/run']) {
    const response = await http(api, 'POST', path, { json: { workflowName: 'hidden.chore', workflowId, input: {} } });
    expectError(response, 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
    assert.match(response.body.message, /hidden\.chore/);
  }
  await expectNothingStarted(api, workflowId, 'hidden.chore');
});

test('steps share one name space: the local step "normalise" (registered later) wins over the package\'s, with one warning naming both', async ({ api }) => {
  const packaged = await runAndWait(api, { workflowName: 'chores.tidy', input: { text: '  dusty ' } });
  assert.equal(packaged.output, { text: 'dusty [local]' });
  const local = await runAndWait(api, { workflowName: 'local.tidy', input: { text: ' shelf ' } });
  assert.equal(local.output, { text: 'shelf [local]' });
  const warnings = api.logs.filter((line) => line.level === 'warn' && /step name "normalise"/.test(line.msg));
  assert.ok(warnings.length >= 1, 'the collision is logged');
  assert.match(warnings[0]!.msg, /package @fixture\/chores \(.*steps\.js\)/);
  assert.match(warnings[0]!.msg, /local module .*normalise\.js/);
});

test('a packaged workflow called from a local one runs as a child: its result returns to the parent, history shows the child', async ({ api }) => {
  const result = await runAndWait(api, { workflowName: 'local.tidyAsChild', input: { text: ' attic ' } });
  assert.is(result.status, 'completed');
  assert.equal(result.output, { text: 'attic [local]' });
  const types = (await historyEvents(api, result.workflowId)).map((event) => event.type);
  assert.ok(types.includes('child_started'), `child_started in ${types.join(', ')}`);
  assert.ok(types.includes('child_completed'), `child_completed in ${types.join(', ')}`);
  const child = await statusOf(api, `${result.workflowId}/chores.tidy-1`);
  expectStatus(child, 200);
  assert.is(child.body.workflowName, 'chores.tidy');
  assert.is(child.body.status, 'completed');
});

test('a packaged child\'s failure reaches the parent as ChildWorkflowFailedError', async ({ api }) => {
  const result = await runAndWait(api, { workflowName: 'local.grumbleAsChild', input: { why: 'dust' } });
  assert.is(result.status, 'completed');
  assert.is(result.output.childFailed, 'ChildWorkflowFailedError');
  const types = (await historyEvents(api, result.workflowId)).map((event) => event.type);
  assert.ok(types.includes('child_failed'), `child_failed in ${types.join(', ')}`);
  const child = await statusOf(api, `${result.workflowId}/chores.grumble-1`);
  assert.is(child.body.status, 'failed');
});

test('stopping the parent cancels the packaged child, and both end cancelled', async ({ api }) => {
  const parent = await start(api, 'local.lingerAsChild', {});
  const childId = `${parent.workflowId}/chores.linger-1`;
  await waitUntil(api, childId, 'running');
  expectStatus(await http(api, 'PATCH', `${wf(parent.workflowId)}/stop`), 200);
  await waitUntil(api, parent.workflowId, 'cancelled');
  await waitUntil(api, childId, 'cancelled');
});

test.run();

/* Name collisions stop the worker before it serves anything; discovery warnings reach the worker's log. */
const startup = suite('package discovery at worker start');

const flowModule = (name: string) =>
  `import { workflow } from 'flowgate';\nimport { z } from 'zod';\nexport const flow = workflow({ name: '${name}', description: '${name}', inputSchema: z.any(), outputSchema: z.any(), fn: async () => '${name}' });\n`;
const exposedPackage = (name: string, files: Record<string, string>) => ({
  name,
  manifest: { name, version: '1.0.0', type: 'module', exports: './index.js', flowgate: { workflows: { expose: true } } },
  files,
});

async function startRefusal(project: { dir: string }, modules: string[]): Promise<Error> {
  try {
    const api = await startTestApi({ DEFAULT_CATALOG: 'clash' }, { catalogs: [{ catalog: 'clash', modules, projectDir: project.dir }] });
    await api.close();
  } catch (error) {
    return error as Error;
  }
  throw new Error('the worker started despite the collision');
}

startup('a packaged workflow with the name of a local one: the worker refuses to start, naming both', async () => {
  const project = await createFixtureProject([exposedPackage('clash-pkg', { 'index.js': flowModule('report') })], { 'workflows/report.js': flowModule('report') });
  try {
    const error = await startRefusal(project, [join(project.dir, 'workflows', 'report.js')]);
    assert.match(error.message, /workflow name "report" is defined twice: by local module .*workflows\/report\.js and by package clash-pkg \(.*node_modules\/clash-pkg\/index\.js\)/);
  } finally {
    await project.remove();
  }
});

startup('two packages with one workflow name: the worker refuses to start, naming both packages', async () => {
  const project = await createFixtureProject(
    [exposedPackage('@a/flows', { 'index.js': flowModule('shared.name') }), exposedPackage('b-flows', { 'index.js': flowModule('shared.name') })],
    { 'workflows/own.js': flowModule('own') },
  );
  try {
    const error = await startRefusal(project, [join(project.dir, 'workflows', 'own.js')]);
    assert.match(error.message, /workflow name "shared\.name" is defined twice: by package @a\/flows \(.*\) and by package b-flows \(.*\)/);
  } finally {
    await project.remove();
  }
});

startup('what discovery cannot follow is logged as one warning line; the rest of the package is served', async () => {
  const project = await createFixtureProject(
    [exposedPackage('partly', { 'index.js': "export * from './ok.js';\nexport * as hidden from './ok.js';\n", 'ok.js': flowModule('partly.ok') })],
    { 'workflows/own.js': flowModule('own.flow') },
  );
  let api: TestApi | undefined;
  try {
    api = await startTestApi({ DEFAULT_CATALOG: 'partial' }, { catalogs: [{ catalog: 'partial', modules: [join(project.dir, 'workflows', 'own.js')], projectDir: project.dir }] });
    const warnings = api.logs.filter((line) => line.level === 'warn' && line.msg.startsWith('package partly:'));
    assert.ok(warnings.length >= 1, 'the warning is logged');
    assert.match(warnings[0]!.msg, /^package partly: node_modules\/partly\/index\.js:2: namespace re-export "export \* as hidden from '\.\/ok\.js'" is not followed/);
    assert.is(warnings[0]!.line, 2);
    const result = await runAndWait(api, { workflowName: 'partly.ok', input: {} });
    assert.is(result.output, 'partly.ok');
  } finally {
    await api?.close();
    await project.remove();
  }
});

startup.run();
