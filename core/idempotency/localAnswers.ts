import type { Clock } from '../../ports/clock.js';
import { IdempotencyKeyReusedError } from '../domain/errors.js';
import type { Answer } from '../api/views.js';

/** An answer kept for its key: it always has its expiry. */
type KeptAnswer<T> = Required<Answer<T>>;

/** At most this many keys are remembered; beyond it the oldest finished answers are forgotten first. */
export const MAX_LOCAL_ANSWERS = 10_000;

interface Entry {
  fingerprint: string;
  answer: Promise<KeptAnswer<unknown>>;
  /** Undefined while the first request is in flight. */
  expiresAt?: number;
}

/**
 * Answers kept in THIS API process for keyed feedback, reset and terminate, on every engine (an engine that keeps
 * the keys too answers the retries sent to other processes; docs/idempotency.md says what that means across replicas
 * and restarts). A retry with the same key and fingerprint joins the request in flight or gets its answer; another
 * fingerprint is IdempotencyKeyReusedError. Failures are not kept: the next retry tries again. Bounded: expired
 * answers are dropped as they come up, and past `maxEntries` the oldest finished ones go first.
 */
export class LocalAnswers {
  /** Finished entries are re-inserted when they finish, so map order is expiry order among them. */
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly clock: Clock,
    private readonly retentionMs: number,
    private readonly maxEntries = MAX_LOCAL_ANSWERS,
  ) {}

  /** `answeredSince`: when the answer's retention starts, asked once it is produced. @default the time it is produced */
  answer<T>(key: string, fingerprint: string, produce: () => Promise<T>, answeredSince?: () => Date): Promise<KeptAnswer<T>> {
    this.dropExpired();
    // Map order is only about expiry order (an answer may count from an earlier request): check this one's own.
    const found = this.entries.get(key);
    if (found?.expiresAt !== undefined && found.expiresAt <= this.clock.now()) this.entries.delete(key);
    const existing = this.entries.get(key);
    if (existing) {
      if (existing.fingerprint !== fingerprint) {
        return Promise.reject(new IdempotencyKeyReusedError('Idempotency-Key was already used for another request (a different body or endpoint); use a new key for a new request'));
      }
      return existing.answer as Promise<KeptAnswer<T>>;
    }
    const entry: Entry = { fingerprint, answer: Promise.resolve(undefined as never) };
    entry.answer = produce().then(
      (answer) => {
        const expiresAt = (answeredSince?.().getTime() ?? this.clock.now()) + this.retentionMs;
        entry.expiresAt = expiresAt;
        this.entries.delete(key);
        this.entries.set(key, entry);
        this.dropOverflow();
        return { answer, expiresAt: new Date(expiresAt) };
      },
      (error: unknown) => {
        if (this.entries.get(key) === entry) this.entries.delete(key);
        throw error;
      },
    );
    this.entries.set(key, entry);
    return entry.answer as Promise<KeptAnswer<T>>;
  }

  /** How many keys are remembered (in flight or answered). */
  get size(): number {
    return this.entries.size;
  }

  private dropExpired(): void {
    const now = this.clock.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt === undefined) continue;
      if (entry.expiresAt > now) break;
      this.entries.delete(key);
    }
  }

  private dropOverflow(): void {
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries) return;
      if (entry.expiresAt !== undefined) this.entries.delete(key);
    }
  }
}
