import { patched, upsertMemo } from '@temporalio/workflow';
import { feedbackWaitStartedAttributes } from '../../../core/domain/history.js';
import { FEEDBACK_WAIT_MEMO_KEY, FEEDBACK_WAIT_PATCH, type FeedbackWaitMemo } from '../protocol.js';

/**
 * A webhook wait begins for real (no reply buffered for it): recorded as the embedded engine records
 * `feedback_wait_started`. Workflow code adds to Temporal's history only through commands; upserting the memo is one
 * without a round trip, written at the wait's workflow task and matched on replay like any command. The patch keeps
 * a run that began waiting under an older worker from meeting the command on replay.
 */
export function recordFeedbackWaitStarted(timeoutMs: number | undefined): void {
  if (!patched(FEEDBACK_WAIT_PATCH)) return;
  const memo: FeedbackWaitMemo = feedbackWaitStartedAttributes(timeoutMs);
  upsertMemo({ [FEEDBACK_WAIT_MEMO_KEY]: memo });
}
