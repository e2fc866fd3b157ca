import type { InputView } from '../api/views.js';
import type { RunRef } from '../domain/run.js';
import type { CoreDeps } from './deps.js';

/** A pinned run's input, or without a run id the original input of the chain (its first run). */
export async function getInput(deps: Pick<CoreDeps, 'engine'>, ref: RunRef): Promise<InputView> {
  const runId = ref.runId ?? (await deps.engine.describe(ref)).firstRunId;
  const input = await deps.engine.getInput({ workflowId: ref.workflowId, runId });
  return { workflowId: ref.workflowId, runId, input: input ?? null };
}
