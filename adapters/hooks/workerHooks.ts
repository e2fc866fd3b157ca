import type { Logger } from '../../ports/logger.js';
import { loadHookFiles } from './hookFiles.js';
import { HookRuntime } from './hookRuntime.js';

export interface WorkerHooksOptions {
  /** The worker project, whose package.json may declare `flowgate.hookFiles`. */
  projectDir?: string | undefined;
  /** Hook files besides the declared ones. */
  hookFiles?: readonly string[] | undefined;
  /** A hook handler still running after this long is abandoned and reported through onError. @default 5000 */
  hookTimeoutMs?: number | undefined;
  logger: Logger;
}

/** A worker's hooks, the same for both engines; undefined for a worker without hook files (nothing is observed). */
export async function loadWorkerHooks(options: WorkerHooksOptions): Promise<HookRuntime | undefined> {
  const definitions = await loadHookFiles({ projectDir: options.projectDir, ...(options.hookFiles ? { hookFiles: options.hookFiles } : {}) });
  if (definitions.length === 0) return undefined;
  return new HookRuntime(definitions, { logger: options.logger, ...(options.hookTimeoutMs ? { handlerTimeoutMs: options.hookTimeoutMs } : {}) });
}
