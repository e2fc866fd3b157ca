import type { StartRequest } from '../api/requests.js';
import { startedByThisCall, type RunIdempotency } from '../domain/idempotency.js';
import { IdempotencyKeyReusedError, WorkflowAlreadyStartedError, WorkflowNotFoundError } from '../domain/errors.js';
import { assertWorkflowId } from '../domain/ids.js';
import type { PinnedRunRef, RunDescription } from '../domain/run.js';
import type { WorkflowEngine } from '../../ports/engine.js';
import type { CoreDeps } from '../useCases/deps.js';
import { fingerprintDigest, keyDigest } from './fingerprint.js';

/** Checks and starts one run, handing the engine the key's record to keep with it (useCases/start.ts: startRun). */
export type StartKeyedRun = (request: StartRequest, idempotency: RunIdempotency) => Promise<RunDescription>;

export interface KeyedStart {
  operation: 'start' | 'run' | 'rerun';
  request: StartRequest;
  /** A rerun's repeated run: part of what makes the request, so the key cannot join a rerun of another run. */
  rerunOf?: PinnedRunRef;
  /** The client's Idempotency-Key. */
  key: string;
  /**
   * When the stored answer of `keyed` expires, seeing the chain's `latest` run; undefined while it is still being
   * produced (a run-and-wait whose run is open).
   */
  expiresAt(keyed: RunDescription, latest: RunDescription): Date | undefined;
}

/**
 * Starts a run at most once per Idempotency-Key, with nothing kept in the API process: the key's record lives on
 * the run (RunIdempotency), under a workflow id the key derives when the request names none. A retry finds the
 * run there and gets it back; concurrent duplicates race to one engine start with the same request id,
 * which the engine deduplicates (each call's startCallId says which of them made the run: the others are hits). Once the stored answer expired, the key starts a new run like a fresh request.
 */
export async function startOnce(
  deps: Pick<CoreDeps, 'engine' | 'ids' | 'digest' | 'clock' | 'defaultCatalog' | 'metrics'>,
  keyed: KeyedStart,
  startRun: StartKeyedRun,
): Promise<RunDescription> {
  const { request, key, operation } = keyed;
  const workflowId = keyedWorkflowId(deps.digest, key, request.workflowId);
  const keyId = keyDigest(deps.digest, key);
  // What makes the run: `timeout` and the result version only shape this request's wait and answer.
  const fingerprint = fingerprintDigest(deps.digest, {
    operation,
    workflowName: request.workflowName,
    catalog: request.catalog ?? deps.defaultCatalog,
    workflowId: request.workflowId ?? null,
    input: request.input,
    callbackUrl: request.callbackUrl ?? null,
    // Absent from a start's fingerprint (canonicalJson drops undefined), so the records of keyed starts still match.
    rerunOf: keyed.rerunOf,
  });
  const mustMatch = (run: RunDescription): RunDescription => {
    if (run.idempotency?.key === keyId && run.idempotency.fingerprint !== fingerprint) {
      throw new IdempotencyKeyReusedError(
        `Idempotency-Key was already used for another request (a different body or endpoint) that started workflow ${run.workflowId}; use a new key for a new request`,
        { workflowId: run.workflowId },
      );
    }
    return run;
  };

  for (let attempt = 0; ; attempt += 1) {
    const latest = await latestRun(deps.engine, workflowId);
    const stored = latest && (await runCarryingKey(deps.engine, latest, keyId));
    if (stored && !isExpired(keyed.expiresAt(stored, latest), deps.clock.now())) {
      const answer = mustMatch(stored);
      deps.metrics?.idempotencyHit(operation);
      return answer;
    }
    // Duplicates that saw the same latest run send the same request id: the engine starts once and returns that run to each.
    const requestId = deps.digest.uuidOf(['idempotency-start', keyId, workflowId, latest?.runId ?? '']);
    const idempotency: RunIdempotency = { key: keyId, fingerprint, requestId, startCallId: deps.ids.uuid() };
    try {
      const answer = mustMatch(await startRun({ ...request, workflowId }, idempotency));
      // A duplicate that raced us to the engine got the run we (or it) made: answered from the key, not a new run.
      if (!startedByThisCall(answer, idempotency)) deps.metrics?.idempotencyHit(operation);
      return answer;
    } catch (error) {
      // Another request started the id between our look and our start: look again (it may be ours, with another request id).
      if (attempt === 0 && error instanceof WorkflowAlreadyStartedError) continue;
      throw error;
    }
  }
}

function isExpired(expiresAt: Date | undefined, now: number): boolean {
  return expiresAt !== undefined && expiresAt.getTime() <= now;
}

/** The workflow id of a keyed start: the one the request names, or one its key derives, so a retry finds the run. */
function keyedWorkflowId(digest: CoreDeps['digest'], key: string, named: string | undefined): string {
  return named === undefined ? digest.uuidOf(['idempotency-workflow-id', key]) : assertWorkflowId(named);
}

/** The run that carries the client's key `key` under `workflowId` (as startOnce derives it), if one does. */
export async function runWithKey(deps: Pick<CoreDeps, 'engine' | 'digest'>, workflowId: string | undefined, key: string): Promise<RunDescription | undefined> {
  const latest = await latestRun(deps.engine, keyedWorkflowId(deps.digest, key, workflowId));
  return latest && (await runCarryingKey(deps.engine, latest, keyDigest(deps.digest, key)));
}

async function latestRun(engine: WorkflowEngine, workflowId: string): Promise<RunDescription | undefined> {
  try {
    return await engine.describe({ workflowId });
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

/**
 * The run of `latest`'s chain that carries the key: the chain's first run (the one the keyed request started, whose
 * answer every retry gets, even where the continued runs carry the key too), or `latest` itself.
 */
async function runCarryingKey(engine: WorkflowEngine, latest: RunDescription, keyId: string): Promise<RunDescription | undefined> {
  if (latest.firstRunId !== latest.runId) {
    try {
      const first = await engine.describe({ workflowId: latest.workflowId, runId: latest.firstRunId });
      if (first.idempotency?.key === keyId) return first;
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
    }
  }
  return latest.idempotency?.key === keyId ? latest : undefined;
}
