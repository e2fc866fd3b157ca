import { parseConfig, type EnvInput } from '../../composition/config.js';
import { composeFlowgate } from '../../composition/container.js';
import { workerParts, type WorkerParts } from '../../composition/worker.js';
import type { Logger } from '../../ports/logger.js';

/** What createWorker shares with the API server, from the one composition (as `flowgate worker` gets it), for `env`. */
export async function testWorkerParts(env: EnvInput, logger: Logger): Promise<WorkerParts> {
  return workerParts(await composeFlowgate(parseConfig(env), { logger }, { role: 'worker' }));
}
