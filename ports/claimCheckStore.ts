/**
 * Where payloads too large for the engine are kept, so the engine carries only a small reference to them (the
 * claim-check pattern). Implemented by adapters/s3 (in the remote trace store's bucket); used by the Temporal
 * adapter's payload codec. Both calls have a deadline and fail with TraceStoreUnavailableError when the store cannot
 * answer, so a store outage costs a bounded wait, never a hung request.
 */
export interface ClaimCheckStore {
  /** Stores the bytes; resolves with the reference to give `get`. Storing the same bytes twice gives the same reference. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes a `put` stored under this reference, checked against it. */
  get(reference: string): Promise<Uint8Array>;
}
