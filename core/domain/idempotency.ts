/**
 * Idempotency-Key (docs/idempotency.md). A run started with a key carries this record in the engine (memory: its run
 * record; Temporal: its memo), so every API replica, and an API restarted, recognises a retry of the same start.
 */
export interface RunIdempotency {
  /** Digest of the client's key; the key itself is never stored. */
  key: string;
  /** Digest of the canonical request; a retry whose fingerprint differs reused the key for another request. */
  fingerprint: string;
  /** The engine's id of the start request: a start retried with it returns the run it started (Temporal's requestId). */
  requestId: string;
  /**
   * A fresh id per call of the engine's start. Concurrent duplicates send the same `requestId` and all get the one run
   * back; the run keeps the `startCallId` of the call that made it, so each call can tell whether it made the run or
   * was answered with one another request made (startedByThisCall). Absent from runs started before it existed.
   */
  startCallId?: string;
}

/**
 * Whether `run`, as an engine's start answered a start with `idempotency`, is a run this call made: not a run an
 * earlier or concurrent request with the same request id made. A start without a key, or whose call carried no
 * `startCallId`, cannot have been answered with another request's run by id, so it counts as made.
 */
export function startedByThisCall(run: { idempotency?: RunIdempotency }, idempotency: RunIdempotency | undefined): boolean {
  return idempotency?.startCallId === undefined || run.idempotency?.startCallId === idempotency.startCallId;
}

/**
 * The Idempotency-Key of a feedback, reset or terminate, handed to an engine that keeps it with what the request did
 * (WorkflowEngine.controlKeys `kept-by-engine`; Temporal: in the signal's header, the terminate's details, the
 * reset's reason), so a retry sent to another API replica is recognised too.
 */
export interface RequestIdempotency {
  /** Digest of the client's key. */
  key: string;
  /** Digest of the canonical request. */
  fingerprint: string;
  /** How long after the request the engine still answers a retry of it (the retention). */
  retentionMs: number;
  /**
   * When this API process took the request (its clock). The engine keeps it with the key: the answer's
   * Idempotency-Expires counts from it, so every replica that recognises a retry announces the same expiry.
   */
  requestedAt: Date;
  /**
   * Called by the engine when the key's record shows that an earlier request (through any API process) already did
   * this one, with that request's `requestedAt`: the answer's expiry counts from it instead.
   */
  recognised(earlierRequestedAt: Date): void;
}
