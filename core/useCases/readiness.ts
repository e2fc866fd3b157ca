import type { ReadinessView } from '../api/views.js';
import { FlowgateError } from '../domain/errors.js';
import type { CoreDeps } from './deps.js';

/** docs/api.md, Readiness: the answer comes within 2 s even when the engine hangs. */
export const READINESS_DEADLINE_MS = 2000;

export async function readiness(deps: Pick<CoreDeps, 'engine' | 'clock'>): Promise<ReadinessView> {
  const engine = deps.engine.kind;
  const controller = new AbortController();
  let cancelTimer = (): void => {};
  const deadline = new Promise<never>((_, reject) => {
    cancelTimer = deps.clock.setTimer(READINESS_DEADLINE_MS, () => {
      controller.abort();
      reject(new Error(`the engine did not answer within ${READINESS_DEADLINE_MS} ms`));
    });
  });
  try {
    await Promise.race([deps.engine.health(controller.signal), deadline]);
    return { status: 'ready', engine };
  } catch (error) {
    // Our own errors carry messages written for users; anything else may hold engine internals.
    const message =
      error instanceof FlowgateError || (error instanceof Error && error.message.startsWith('the engine did not answer'))
        ? error.message
        : 'the engine health check failed';
    return { status: 'unavailable', engine, message };
  } finally {
    cancelTimer();
  }
}
