import { parseWorkerConfig } from '../workerConfig.js';
import { importNeeding, OPTIONAL_PACKAGES } from '../optionalPackages.js';
import { textOption, type Command } from './command.js';
import { untilSignal } from './signals.js';

export const workerCommand: Command = {
  name: 'worker',
  summary: 'a Temporal worker serving your workflows in one catalog (task queue)',
  synopsis: '[--workflows DIR] [--catalog C]',
  description: [
    'Bundles the workflows of DIR and of the exposed packages in node_modules for Temporal, publishes the catalog,',
    'and runs their steps. Needs TEMPORAL_ADDRESS (and TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS as the',
    'cluster wants) and the optional packages @temporalio/worker, @temporalio/workflow and @temporalio/activity.',
    'Ctrl-C or SIGTERM tells the catalog goodbye, lets running steps finish, and exits.',
  ].join('\n'),
  options: {
    workflows: { type: 'string', value: 'DIR', description: 'directory of workflow modules (WORKFLOWS_DIR; default ./workflows)' },
    catalog: { type: 'string', value: 'C', description: 'catalog = task queue to serve (WORKER_CATALOG; default DEFAULT_CATALOG, main)' },
  },
  async run(values, context) {
    const overrides = { WORKFLOWS_DIR: textOption(values.workflows, 'workflows'), WORKER_CATALOG: textOption(values.catalog, 'catalog') };
    const config = parseWorkerConfig({ ...context.env, ...Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined)) });
    // Loaded only now, and only here: the worker's packages are optional (the embedded engine runs without them).
    const { startWorkerProcess } = await importNeeding(() => import('./workerProcess.js'), OPTIONAL_PACKAGES.temporalWorker, 'The Temporal worker');
    const worker = await startWorkerProcess(config);
    context.stderr(`flowgate: worker ${worker.identity} serving catalog ${config.catalog} on ${config.temporal.address}\n`);
    const outcome = await Promise.race([worker.running.then(() => 'ended' as const), untilSignal()]);
    if (outcome === 'ended') return 0;
    context.stderr(`flowgate: ${outcome} received, shutting down\n`);
    await worker.shutdown();
    await worker.running;
    return 0;
  },
};
