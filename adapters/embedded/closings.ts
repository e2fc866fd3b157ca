import { identityAttribute, type HistoryEventType } from '../../core/domain/history.js';
import { cancelledRunFailure, HISTORY_SIZE_LIMIT_EXCEEDED, runTimedOutFailure, type SerializedFailure } from '../../core/domain/run.js';
import type { TerminalStatus } from '../../core/domain/status.js';
import type { Payload } from './payload.js';

/** How a run ends: its status, what it produced and the closing history event. */
export interface RunClosing {
  status: TerminalStatus;
  /** Set for a completed run. */
  output: Payload | undefined;
  failure: SerializedFailure | null;
  event: { type: HistoryEventType; attributes: Record<string, unknown> };
  /** continue-as-new: the input of the next run. */
  continueWith?: { input: Payload };
}

/** Thrown by ctx.continueAsNew, as Temporal's ContinueAsNew is: `finally` blocks run on the way out. */
export class ContinueAsNewRequest extends Error {
  override name = 'ContinueAsNew';
  constructor(readonly input: Payload) {
    super('The workflow continues as new');
  }
}

export const closings = {
  completed: (output: Payload): RunClosing => ({
    status: 'completed',
    output,
    failure: null,
    event: { type: 'workflow_completed', attributes: { output } },
  }),
  failed: (failure: SerializedFailure): RunClosing => ({
    status: 'failed',
    output: undefined,
    failure,
    event: { type: 'workflow_failed', attributes: { error: failure } },
  }),
  /** As on Temporal: the run's error says it was cancelled, not which wait the stop interrupted. */
  cancelled: (): RunClosing => ({
    status: 'cancelled',
    output: undefined,
    failure: cancelledRunFailure(),
    event: { type: 'workflow_cancelled', attributes: {} },
  }),
  terminated: (reason: string, identity?: string): RunClosing => ({
    status: 'terminated',
    output: undefined,
    // As on Temporal, the reason is the failure's message.
    failure: { name: 'WorkflowTerminatedError', message: reason || 'The workflow run was terminated' },
    event: { type: 'workflow_terminated', attributes: { reason, ...identityAttribute(identity) } },
  }),
  /**
   * Temporal terminates a run whose history passes limit.historySize.error ("Workflow history size exceeds limit.");
   * the embedded engine does the same at MEMORY_MAX_HISTORY_BYTES, under a name a client can tell apart.
   */
  historySizeExceeded: (bytes: number, maxBytes: number): RunClosing => {
    const message =
      `The run's history is ${bytes} bytes, over the limit of ${maxBytes} bytes (MEMORY_MAX_HISTORY_BYTES): ` +
      'the run was terminated. Pass large values by reference (a URL or a key) instead of in inputs, results and replies';
    return {
      status: 'terminated',
      output: undefined,
      failure: { name: HISTORY_SIZE_LIMIT_EXCEEDED, message },
      event: { type: 'workflow_terminated', attributes: { reason: message } },
    };
  },
  timedOut: (runTimeoutMs: number): RunClosing => ({
    status: 'timed_out',
    output: undefined,
    failure: runTimedOutFailure(runTimeoutMs),
    event: { type: 'workflow_timed_out', attributes: { runTimeoutMs } },
  }),
  /** `newRunId` is filled in once the next run exists. */
  continuedAsNew: (input: Payload): RunClosing => ({
    status: 'continued_as_new',
    output: undefined,
    failure: null,
    event: { type: 'workflow_continued_as_new', attributes: { input } },
    continueWith: { input },
  }),
};
