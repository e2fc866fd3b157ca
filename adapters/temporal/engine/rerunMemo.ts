import type { PinnedRunRef } from '../../../core/domain/run.js';
import type { Payload } from './proto.js';
import { decodeIfPossible } from './values.js';

/**
 * Memo key of a run a rerun started: the run it repeats, read back by describe and the run list on any API replica.
 * Continue-as-new copies it (sandbox/continueAsNew.ts gives the memo again) and reset keeps it, so every run of the
 * chain says what it repeats, as on the embedded engine.
 */
export const RERUN_MEMO_KEY = 'flowgate.rerunOf';

/** The `memo` start option (the client encodes it with the default converter, which decodePayload reads). */
export function rerunMemo(rerunOf: PinnedRunRef): Record<string, unknown> {
  return { [RERUN_MEMO_KEY]: { workflowId: rerunOf.workflowId, runId: rerunOf.runId } };
}

/** The repeated run in a described run's memo; undefined when absent or not one of ours. */
export function rerunOfMemo(fields: { [key: string]: Payload } | null | undefined): PinnedRunRef | undefined {
  const { workflowId, runId } = (decodeIfPossible(fields?.[RERUN_MEMO_KEY]) ?? {}) as Partial<Record<keyof PinnedRunRef, unknown>>;
  if (typeof workflowId !== 'string' || typeof runId !== 'string') return undefined;
  return { workflowId, runId };
}
