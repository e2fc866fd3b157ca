import { IdempotencyStoreFullError } from '../../../core/domain/errors.js';
import type { RunDescription, RunOutcome, RunRef, SerializedFailure } from '../../../core/domain/run.js';
import type { Clock } from '../../../ports/clock.js';
import { jsonCopy } from '../json.js';
import type { Payload } from '../payload.js';
import { descriptionCopy, type RunRecord } from '../runRecord.js';

/** Two descriptions, the map entry and the queue slot of a record, about, besides the workflow id they repeat. */
const KEY_RECORD_BYTES = 1024;

/** What a record costs before its chain closed: the id is held by the map key and both descriptions. */
function baseBytes(workflowId: string): number {
  return KEY_RECORD_BYTES + 3 * workflowId.length;
}

/** What a retry of a keyed start needs once the runs of its chain are forgotten. */
interface KeyRecord {
  /** Tells this record from a later one of the same workflow id in the expiry queue. */
  readonly serial: number;
  /** The keyed run, the chain's first: the engine's own description object, so it is always current. */
  readonly first: RunDescription;
  /** The chain's last run, once it closed: its description, result and failure (the payload its run kept). */
  end?: { description: RunDescription; output: Payload | undefined; failure: SerializedFailure | null };
  /** The chain's close plus the retention: the latest any answer of the key expires. */
  expiresAt?: number;
  bytes: number;
}

/**
 * The Idempotency-Keys of keyed starts on the embedded engine (docs/idempotency.md). A keyed start's key lives with
 * its run (RunDescription.idempotency), as on Temporal; the run store forgets closed runs by count and bytes, so this
 * store keeps, per workflow id, what a retry of the start or run-and-wait needs until the key expires: the keyed run's
 * description and the chain's last run with its outcome. The engine answers describe and outcome reads of a forgotten
 * run from here, so a retry finds its run, not a free id.
 *
 * Bounded on its own, by bytes (about 1 KiB a key, plus the result it answers with once its run closed): a record is
 * never dropped before it expires; when a new key does not fit, the keyed start is refused with
 * IdempotencyStoreFullError (503, Retry-After: when the oldest key expires). A record also goes when a new chain
 * starts on its workflow id (the key is then no longer found there, as on Temporal).
 */
export class KeyRecords {
  private readonly byWorkflowId = new Map<string, KeyRecord>();
  /**
   * Closed chains' records in close order, which is expiry order (one retention for all). Entries name their record
   * by serial, so a record superseded meanwhile is not kept alive by its entry.
   */
  private expiries: ({ workflowId: string; serial: number; expiresAt: number } | undefined)[] = [];
  private expiriesHead = 0;
  private totalBytes = 0;
  private serials = 0;

  constructor(
    private readonly clock: Clock,
    private readonly retentionMs: number,
    private readonly maxBytes: number,
  ) {}

  get usage(): { keyRecords: number; keyRecordBytes: number } {
    this.dropExpired();
    return { keyRecords: this.byWorkflowId.size, keyRecordBytes: this.totalBytes };
  }

  /** Throws IdempotencyStoreFullError when a new key for `workflowId` does not fit. */
  admit(workflowId: string): void {
    this.dropExpired();
    const replaced = this.byWorkflowId.get(workflowId)?.bytes ?? 0;
    if (this.totalBytes - replaced + baseBytes(workflowId) <= this.maxBytes) return;
    const oldest = this.expiries[this.expiriesHead];
    const retryAfterMs = oldest ? oldest.expiresAt - this.clock.now() : this.retentionMs;
    const retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
    throw new IdempotencyStoreFullError(
      `The embedded engine keeps MEMORY_MAX_IDEMPOTENCY_BYTES (${this.maxBytes}) of Idempotency-Key records and they are all still in force; the oldest expires in ${retryAfterSeconds} s. Retry then, or send the start without the key`,
      { workflowId, retryAfterSeconds },
    );
  }

  /** A new chain began on the run's workflow id: its record when the run is keyed; any older record is superseded. */
  chainStarted(run: RunRecord): void {
    const { workflowId } = run.description;
    this.remove(workflowId);
    if (!run.description.idempotency) return;
    this.serials += 1;
    const bytes = baseBytes(workflowId);
    this.byWorkflowId.set(workflowId, { serial: this.serials, first: run.description, bytes });
    this.totalBytes += bytes;
  }

  /** The last run of a chain closed (not continued as new): what the key answers with from now on. */
  chainClosed(run: RunRecord): void {
    const { workflowId, firstRunId, closedAt } = run.description;
    const record = this.byWorkflowId.get(workflowId);
    if (!record || record.first.runId !== firstRunId) return;
    const bytes = baseBytes(workflowId) + (run.output?.bytes ?? 0) + (run.failure ? (JSON.stringify(run.failure)?.length ?? 0) : 0);
    this.totalBytes += bytes - record.bytes;
    record.bytes = bytes;
    record.end = { description: run.description, output: run.output, failure: run.failure };
    record.expiresAt = (closedAt?.getTime() ?? this.clock.now()) + this.retentionMs;
    this.expiries.push({ workflowId, serial: record.serial, expiresAt: record.expiresAt });
  }

  /** The description of a run the record still answers for (the keyed run, or its chain's last), if any. */
  describe(ref: RunRef): RunDescription | undefined {
    const record = this.live(ref.workflowId);
    if (!record) return undefined;
    const end = record.end?.description;
    if (ref.runId === undefined) return descriptionCopy(end ?? record.first);
    if (ref.runId === end?.runId) return descriptionCopy(end);
    return ref.runId === record.first.runId ? descriptionCopy(record.first) : undefined;
  }

  /** The keyed run of the id's chain (its first run), if the id has a key record. */
  keyedRun(workflowId: string): RunDescription | undefined {
    const record = this.live(workflowId);
    return record ? descriptionCopy(record.first) : undefined;
  }

  /**
   * The outcome of a closed run the record answers for: the chain's last run's in full (also for the keyed run with
   * `chainEnd`, as a run-and-wait follows its chain), or the keyed run's own once it closed (continued as new).
   */
  outcome(ref: RunRef, { chainEnd = false }: { chainEnd?: boolean } = {}): RunOutcome | undefined {
    const record = this.live(ref.workflowId);
    if (!record) return undefined;
    const { end, first } = record;
    const endAnswers = ref.runId === undefined || ref.runId === end?.description.runId || (chainEnd && ref.runId === first.runId);
    if (end && endAnswers) {
      return { run: descriptionCopy(end.description), output: end.output?.value(), failure: jsonCopy(end.failure) as SerializedFailure | null };
    }
    if (ref.runId === first.runId && first.status !== 'running' && !chainEnd) return { run: descriptionCopy(first), output: undefined, failure: null };
    return undefined;
  }

  private live(workflowId: string): KeyRecord | undefined {
    this.dropExpired();
    return this.byWorkflowId.get(workflowId);
  }

  private remove(workflowId: string): void {
    const record = this.byWorkflowId.get(workflowId);
    if (!record) return;
    this.byWorkflowId.delete(workflowId);
    this.totalBytes -= record.bytes;
  }

  private dropExpired(): void {
    const now = this.clock.now();
    for (let entry = this.expiries[this.expiriesHead]; entry && entry.expiresAt <= now; entry = this.expiries[this.expiriesHead]) {
      this.expiries[this.expiriesHead] = undefined;
      this.expiriesHead += 1;
      // Entries of records superseded since, or of a chain closed again later (a reset run), are stale.
      const record = this.byWorkflowId.get(entry.workflowId);
      if (record?.serial === entry.serial && record.expiresAt === entry.expiresAt) this.remove(entry.workflowId);
    }
    if (this.expiriesHead > 1024 && this.expiriesHead * 2 > this.expiries.length) {
      this.expiries = this.expiries.slice(this.expiriesHead);
      this.expiriesHead = 0;
    }
  }
}
