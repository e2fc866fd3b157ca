import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { step } from '../../../core/definition/index.js';
import { describeStepCollision, registerSteps } from '../../../adapters/workflowSources/stepRegistration.js';
import { oneNameSpace } from '../../../adapters/workflowSources/workerWorkflows.js';
import { StepNameCollisionError, WorkflowNameCollisionError } from '../../../adapters/workflowSources/sourceErrors.js';
import { workflow } from '../../../core/definition/index.js';
import { z } from 'zod';

const named = (name: string, tag: string) => step({ name, fn: async () => tag }).definition;

test('steps register packages first (by name), then local modules: the later registration wins and each collision is reported', () => {
  const localFetch = named('fetch', 'local');
  const acmeFetch = named('fetch', 'acme');
  const zedFetch = named('fetch', 'zed');
  const only = named('only', 'acme');
  const table = registerSteps([
    { modulePath: '/p/steps.js', packageName: undefined, steps: [localFetch] },
    { modulePath: '/n/zed/steps.js', packageName: 'zed', steps: [zedFetch] },
    { modulePath: '/n/@acme/x/steps.js', packageName: '@acme/x', steps: [acmeFetch, only] },
  ]);
  assert.is(table.byName.get('fetch'), localFetch);
  assert.is(table.byName.get('only'), only);
  assert.equal(
    table.collisions.map(describeStepCollision),
    [
      'step name "fetch" is registered twice: package @acme/x (/n/@acme/x/steps.js) and package zed (/n/zed/steps.js); the later registration (package zed (/n/zed/steps.js)) wins',
      'step name "fetch" is registered twice: package zed (/n/zed/steps.js) and local module /p/steps.js; the later registration (local module /p/steps.js) wins',
    ],
  );
});

test('the same step reached through two modules is one registration, not a collision', () => {
  const shared = named('shared', 'x');
  const table = registerSteps([
    { modulePath: '/p/a.js', packageName: undefined, steps: [shared] },
    { modulePath: '/p/b.js', packageName: undefined, steps: [shared] },
  ]);
  assert.equal(table.collisions, []);
  assert.is(table.byName.get('shared'), shared);
});

test('two different steps of one name in the project\'s own modules refuse to start, naming both modules', () => {
  const modules = [
    { modulePath: '/p/b/steps.js', packageName: undefined, steps: [named('fetch', 'b')] },
    { modulePath: '/p/a/steps.js', packageName: undefined, steps: [named('fetch', 'a'), named('other', 'a')] },
  ];
  assert.throws(
    () => registerSteps(modules),
    (error: unknown) =>
      error instanceof StepNameCollisionError &&
      error.message === 'step name "fetch" is defined twice: by local module /p/a/steps.js and by local module /p/b/steps.js; rename one of them',
  );
});

const definition = (name: string) =>
  workflow({ name, description: name, inputSchema: z.any(), outputSchema: z.any(), fn: async () => null });

test('workflow names: a local and a packaged definition of one name refuse to start, naming both sources', () => {
  const local = { modulePath: '/p/w.js', exportName: 'a', definition: definition('report'), origin: { kind: 'local', file: '/p/w.js' } } as const;
  const packaged = {
    modulePath: '/p/node_modules/acme/r.js',
    exportName: 'report',
    definition: definition('report'),
    origin: { kind: 'package', packageName: 'acme', packageDir: '/p/node_modules/acme', file: '/p/node_modules/acme/r.js' },
  } as const;
  const error = (() => {
    try {
      oneNameSpace([local, packaged]);
    } catch (caught) {
      return caught;
    }
    return undefined;
  })();
  assert.instance(error, WorkflowNameCollisionError);
  assert.is(
    (error as Error).message,
    'workflow name "report" is defined twice: by local module /p/w.js and by package acme (/p/node_modules/acme/r.js); rename one of them',
  );
  assert.equal(oneNameSpace([local, { ...local, exportName: 'again' }]).length, 1, 'the same definition twice is one workflow');
  assert.throws(
    () => oneNameSpace([local, { ...local, exportName: 'b', definition: definition('report') }]),
    (error: unknown) => (error as Error).message === 'workflow name "report" is defined twice: by the exports a and b of local module /p/w.js; rename one of them',
    'two exports of one file are named by their exports',
  );
});

test.run();
