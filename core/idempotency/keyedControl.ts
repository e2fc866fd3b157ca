import { canonicalJson, type Idempotent, type RequestIdempotency } from '../domain/idempotency.js';
import type { CoreDeps } from '../useCases/deps.js';
import { LocalAnswers } from './localAnswers.js';

export type KeyedControl = <T>(key: string, request: readonly unknown[], produce: (idempotency: RequestIdempotency) => Promise<T>) => Promise<Idempotent<T>>;

/**
 * Feedback, reset and terminate with an Idempotency-Key (docs/idempotency.md): answered once per key and request by
 * this process (LocalAnswers); `produce` hands the key's digests to the engine, which on Temporal keeps them with
 * what the request did, for retries that reach another API replica. `request` names the operation and every value
 * that makes it (its fingerprint).
 */
export function createKeyedControl(deps: Pick<CoreDeps, 'digest' | 'clock' | 'idempotencyRetentionMs' | 'metrics'>): KeyedControl {
  const answers = new LocalAnswers(deps.clock, deps.idempotencyRetentionMs);
  return (key, request, produce) => {
    const idempotency: RequestIdempotency = {
      key: deps.digest.uuidOf(['idempotency-key', key]),
      fingerprint: deps.digest.uuidOf(['idempotency-fingerprint', canonicalJson(request)]),
      retentionMs: deps.idempotencyRetentionMs,
    };
    // LocalAnswers produces at once for a key it does not hold: not producing is answering from the stored copy.
    let produced = false;
    const answer = answers.answer(idempotency.key, idempotency.fingerprint, () => {
      produced = true;
      return produce(idempotency);
    });
    if (!produced) void answer.then(() => deps.metrics?.idempotencyHit(String(request[0])), () => {});
    return answer;
  };
}
