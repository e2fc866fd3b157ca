import { FlowgateApiError } from './clientErrors.js';
import { idPathSegment } from '../../core/domain/ids.js';
import { newIdempotencyKey, type Transport } from './transport.js';
import type { KeyedCallOptions, RunWorkflowRequest, WorkflowResultV2 } from './types.js';

export interface RunOptions extends KeyedCallOptions, Omit<RunWorkflowRequest, 'workflowName' | 'input' | 'timeout'> {
  /**
   * The caller's overall deadline in milliseconds: past it, the 408 is thrown (its `workflowId`, `runId` and
   * `location` say which run to ask later; the run keeps going). Without it, `run` waits until the run closes (or `signal` aborts).
   */
  timeoutMs?: number | undefined;
  /** Seconds each request waits on the server before the client asks again (default 30; at most the server's RUN_TIMEOUT_MAX_SECONDS). */
  pollSeconds?: number | undefined;
}

const DEFAULT_POLL_SECONDS = 30;
/** Under this many seconds left, the next wait is not worth a request. */
const SMALLEST_WAIT_SECONDS = 0.05;

/**
 * POST /workflow/run, then never losing the run: a 408 (the run outlived the request's `timeout`) is followed to its
 * `Location` with `?wait=` long-polls until the run closes (a run that continued as new: to the end of its chain) or
 * the caller's deadline passes. The start carries an Idempotency-Key, so a retry after a dropped connection joins the
 * first start instead of starting another run.
 */
export async function runAndWait(transport: Transport, workflowName: string, input: unknown, options: RunOptions = {}): Promise<WorkflowResultV2> {
  const { signal, requestId, idempotencyKey, timeoutMs, pollSeconds = DEFAULT_POLL_SECONDS, ...fields } = options;
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  const secondsLeft = () => Math.min(pollSeconds, (deadline - Date.now()) / 1000);
  const key = idempotencyKey === false ? undefined : (idempotencyKey ?? newIdempotencyKey());
  let timedOut: FlowgateApiError;
  try {
    const timeout = roundedUp(Math.max(secondsLeft(), SMALLEST_WAIT_SECONDS));
    const answer = await transport.json<WorkflowResultV2>({
      method: 'POST',
      path: '/workflow/run',
      body: { ...fields, workflowName, input, timeout },
      serverWaitSeconds: timeout,
      headers: key === undefined ? {} : { 'idempotency-key': key },
      retrySafe: key !== undefined,
      ...(signal ? { signal } : {}),
      ...(requestId ? { requestId } : {}),
    });
    return answer.body;
  } catch (error) {
    if (!(error instanceof FlowgateApiError) || error.status !== 408 || error.location === undefined) throw error;
    timedOut = error;
  }
  // The pinned result of the run the call started; once that run continued as new, the id form, which follows the
  // chain to its end (docs/long-poll.md). Built from the run's ids under the client's own base, not taken from the
  // Location: behind a proxy that strips the mount prefix, the server's Location lacks it.
  let target: { path: string; absolutePath: boolean } =
    timedOut.workflowId !== undefined && timedOut.runId !== undefined
      ? { path: `/workflow/${idPathSegment(timedOut.workflowId)}/runs/${idPathSegment(timedOut.runId)}/result`, absolutePath: false }
      : { path: timedOut.location!, absolutePath: true };
  for (;;) {
    const wait = secondsLeft();
    if (wait < SMALLEST_WAIT_SECONDS) throw timedOut;
    let result: WorkflowResultV2;
    try {
      const answer = await transport.json<WorkflowResultV2>({
        method: 'GET',
        ...target,
        query: { wait: roundedUp(wait) },
        serverWaitSeconds: roundedUp(wait),
        retrySafe: true,
        ...(signal ? { signal } : {}),
      });
      result = answer.body;
    } catch (error) {
      // 424: still open when the wait ended; anything else (the run gone, a refusal past the retries) is the answer.
      if (!(error instanceof FlowgateApiError) || error.status !== 424) throw error;
      continue;
    }
    if (result.status !== 'continued_as_new') return result;
    target = { path: `/workflow/${idPathSegment(result.workflowId)}/result`, absolutePath: false };
  }
}

/** Milliseconds of precision are plenty and keep the query short. */
function roundedUp(seconds: number): number {
  return Math.ceil(seconds * 1000) / 1000;
}
