import type { IdempotencyOptions } from '../api/requests.js';
import type { Answer } from '../api/views.js';
import type { RequestIdempotency } from '../domain/idempotency.js';
import type { CoreDeps } from '../useCases/deps.js';
import type { WorkflowEngine } from '../../ports/engine.js';
import { fingerprintDigest, keyDigest } from './fingerprint.js';
import { LocalAnswers } from './localAnswers.js';

/**
 * Carries out a feedback, reset or terminate: at once without a key; with one, once per key and request.
 * `request` names the operation and every value that makes it (its fingerprint); `produce` does the work, handing
 * `idempotency` on to the engine (undefined without a key, or when the engine keeps no keys).
 */
export type KeyedControl = <T>(
  options: IdempotencyOptions | undefined,
  request: readonly unknown[],
  produce: (idempotency: RequestIdempotency | undefined) => Promise<T>,
) => Promise<Answer<T>>;

/**
 * Keyed feedback, reset and terminate (docs/idempotency.md): answered once per key and request by this process
 * (LocalAnswers), on every engine. An engine whose `controlKeys` is `kept-by-engine` (Temporal, the durable embedded
 * engine) is also handed the key's digests, and keeps them with what the request did, for the retries that reach
 * another API replica or come after a restart; one that keeps none (the embedded engine in memory, which lives in this
 * process) is never handed them.
 */
export function createKeyedControl(
  deps: { engine: Pick<WorkflowEngine, 'controlKeys'> } & Pick<CoreDeps, 'digest' | 'clock' | 'idempotencyRetentionMs' | 'metrics'>,
): KeyedControl {
  const answers = new LocalAnswers(deps.clock, deps.idempotencyRetentionMs);
  return async (options, request, produce) => {
    const key = options?.idempotencyKey;
    if (key === undefined) return { answer: await produce(undefined) };
    let since: Date | undefined;
    const idempotency: RequestIdempotency = {
      key: keyDigest(deps.digest, key),
      fingerprint: fingerprintDigest(deps.digest, request),
      retentionMs: deps.idempotencyRetentionMs,
      requestedAt: new Date(deps.clock.now()),
      recognised: (earlier) => {
        since = earlier;
      },
    };
    // LocalAnswers produces at once for a key it does not hold: not producing is answering from the stored copy.
    let produced = false;
    const answer =
      deps.engine.controlKeys !== 'kept-by-engine'
        ? answers.answer(idempotency.key, idempotency.fingerprint, () => {
            produced = true;
            return produce(undefined);
          })
        : // The engine's record says since when the answer holds (this request's time, or the earlier request's it
          // recognised), the same on every replica; the process's own clock after the answer would differ from one to the next.
          answers.answer(
            idempotency.key,
            idempotency.fingerprint,
            () => {
              produced = true;
              return produce(idempotency);
            },
            () => since ?? idempotency.requestedAt,
          );
    // A hit is an answer from what the key stored: this process's copy (nothing produced), or the engine's record of
    // an earlier request through any API process, which the engine recognised while producing. Temporal reads the
    // record back after its own signal too, and recognises this very request (`since` its own time): not a hit.
    void answer.then(() => {
      const earlier = since !== undefined && since.getTime() !== idempotency.requestedAt.getTime();
      if (!produced || earlier) deps.metrics?.idempotencyHit(String(request[0]));
    }, () => {});
    return answer;
  };
}
