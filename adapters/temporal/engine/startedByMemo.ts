import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Payload } from './proto.js';
import { decodeIfPossible } from './values.js';

/**
 * Memo key of the API key that started a run (docs/security.md, Who did what), read back by describe and the run list
 * on any API replica. Continue-as-new copies it (sandbox/continueAsNew.ts gives the memo again) and reset keeps it.
 */
export const STARTED_BY_MEMO_KEY = 'flowgate.startedBy';

/**
 * Keyword search attribute of the same key id, which `GET /workflow/runs?startedBy=` filters on. The dev server
 * registers it (scripts/infra); a cluster needs it created once (docs/operations.md).
 */
export const STARTED_BY_SEARCH_ATTRIBUTE = 'FlowgateStartedBy';
export const startedByKey = defineSearchAttributeKey(STARTED_BY_SEARCH_ATTRIBUTE, SearchAttributeType.KEYWORD);

/** The `memo` start option. */
export function startedByMemo(startedBy: string): Record<string, unknown> {
  return { [STARTED_BY_MEMO_KEY]: startedBy };
}

/** The starter in a run's memo; undefined when absent or not one of ours. */
export function startedByOf(fields: { [key: string]: Payload } | null | undefined): string | undefined {
  const value = decodeIfPossible(fields?.[STARTED_BY_MEMO_KEY]);
  return typeof value === 'string' && value !== '' ? value : undefined;
}
