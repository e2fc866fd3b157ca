import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { collectWorkerWorkflows } from '../../../adapters/workflowSources/workerWorkflows.js';
import { WorkflowNameCollisionError } from '../../../adapters/workflowSources/sourceErrors.js';
import { CapturingLogger } from '../../support/logLines.js';
import { createFixtureProject } from '../../support/fixturePackages.js';
import { collidingPackage } from '../../fixtures/packages/collidingPackage.js';

test('two different workflows of one name inside one exposed package refuse to start, naming both files', async () => {
  const project = await createFixtureProject([collidingPackage]);
  try {
    const logger = new CapturingLogger();
    const error = await collectWorkerWorkflows({ workflowModules: [], projectDir: project.dir, logger }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    assert.instance(error, WorkflowNameCollisionError, 'the worker does not start with one of the two');
    const packageDir = join(project.dir, 'node_modules', '@fixture', 'reports');
    assert.is(
      (error as Error).message,
      `workflow name "reports.monthly" is defined twice: by package @fixture/reports (${join(packageDir, 'monthly.js')}) and by package @fixture/reports (${join(packageDir, 'draft.js')}); rename one of them`,
    );
    assert.equal(logger.messages('warn'), [], 'a refusal, not a warning');
  } finally {
    await project.remove();
  }
});

test('the same definition re-exported under two names inside a package is one workflow', async () => {
  const project = await createFixtureProject([
    { ...collidingPackage, files: { ...collidingPackage.files, 'index.js': "export { monthly } from './monthly.js';\nexport { monthly as monthlyAgain } from './monthly.js';\n" } },
  ]);
  try {
    const { workflows } = await collectWorkerWorkflows({ workflowModules: [], projectDir: project.dir, logger: new CapturingLogger() });
    assert.equal(workflows.map(({ definition }) => definition.name), ['reports.monthly']);
  } finally {
    await project.remove();
  }
});

test.run();
