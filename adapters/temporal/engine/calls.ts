import type { Client, Connection, WorkflowSignalInput } from '@temporalio/client';
import { EngineUnavailableError } from '../../../core/domain/errors.js';
import { isThrottled, translateError, type CallContext } from './grpcErrors.js';
import type { WorkflowService } from './proto.js';
import { requestIdentity } from './identity.js';
import type { ClaimCheckCodec } from '../claimCheckCodec.js';
import type { Clock } from '../../../ports/clock.js';
import { waitClock } from '../../system/systemClock.js';

export interface CallOptions {
  /** Cancels the call (the gRPC request is cancelled, not just abandoned); the call rejects with its reason. */
  signal?: AbortSignal;
  /** Deadline of this call instead of the engine's rpcTimeoutMs (long polls). */
  timeoutMs?: number;
}

/**
 * Every request to Temporal goes through here: it gets a deadline (nothing hangs a request forever), is cancelled
 * when its caller gives up or the engine closes, is sent again when Temporal's rate limits turned it away and the
 * deadline leaves room, and its errors leave as the core's named errors.
 */
export class TemporalCalls {
  /** Why calls are refused: set by close(). */
  private closedBy: Error | undefined;
  /**
   * The controllers of the calls in flight, aborted by close(). A set, not an abort listener per call on the shutdown
   * signal: adding and removing an EventTarget listener was a tenth of a start's own cost (docs/performance.md, figure 9).
   */
  private readonly inFlight = new Set<AbortController>();

  constructor(
    private readonly client: Client,
    readonly namespace: string,
    private readonly timeoutMs: number,
    /** Large payloads kept in S3 (claimCheckCodec.ts); raw API answers are resolved through it. */
    readonly claimChecks?: ClaimCheckCodec,
    /**
     * Measures deadlines and throttle pauses (a pause keeps the process alive, as the call it delays does); a test
     * gives a manual clock, so the attempts it counts do not depend on the machine's load.
     */
    private readonly clock: Clock = waitClock,
  ) {}

  /**
   * Puts the original payloads back into a message read straight from Temporal's API (history events, memos), where
   * the client's data converter does not run. A store that cannot answer fails with TraceStoreUnavailableError.
   */
  async resolvePayloads<T>(message: T): Promise<T> {
    return this.claimChecks ? this.claimChecks.resolveIn(message) : message;
  }

  get service(): WorkflowService {
    return this.client.workflowService;
  }

  get workflows(): Client['workflow'] {
    return this.client.workflow;
  }

  /** Temporal Schedules (schedules.ts). */
  get schedules(): Client['schedule'] {
    return this.client.schedule;
  }

  /** Who the requests come from, in Temporal's records (the client's identity). */
  get identity(): string | undefined {
    return this.client.options.identity;
  }

  /** The identity of a request an API key makes (identity.ts), or the client's own without one. */
  identityFor(keyId: string | undefined): string {
    return requestIdentity(keyId, this.identity);
  }

  /**
   * A signal sent through the raw service call (`send`: for what the client's signal cannot carry, a request id), with
   * the client's workflow interceptors around it as the client's own signal has them: with tracing on, the signal's
   * span and the trace context in its headers (docs/operations.md, Tracing). `send` sends the headers it is given.
   */
  async interceptedSignal(input: WorkflowSignalInput, send: (input: WorkflowSignalInput) => Promise<void>): Promise<void> {
    const { interceptors } = this.client.workflow.options;
    // The deprecated factory form (`{ calls }`) is never given by flowgate's composition.
    const chain = (Array.isArray(interceptors) ? interceptors : []).reduceRight<(input: WorkflowSignalInput) => Promise<void>>(
      (next, interceptor) => (interceptor.signal ? (signal) => interceptor.signal!(signal, next) : next),
      send,
    );
    await chain(input);
  }

  get closed(): boolean {
    return this.closedBy !== undefined;
  }

  /** Cancels every call in flight and refuses new ones. */
  close(): void {
    this.closedBy ??= closedError();
    for (const controller of this.inFlight) controller.abort(this.closedBy);
    this.inFlight.clear();
  }

  async call<T>(request: () => Promise<T>, context: CallContext = {}, options: CallOptions = {}): Promise<T> {
    const callerSignal = options.signal;
    if (this.closedBy) throw this.closedBy;
    if (callerSignal?.aborted) throw reasonOf(callerSignal);
    const deadline = this.clock.now() + (options.timeoutMs ?? this.timeoutMs);
    // One controller per call, aborted by close() or by the caller's signal and forgotten afterwards: the SDK adds an
    // abort listener per request and never removes it, which on a long-lived signal would grow without end.
    const controller = new AbortController();
    const abort = (): void => controller.abort();
    this.inFlight.add(controller);
    callerSignal?.addEventListener('abort', abort, { once: true });
    try {
      for (let attempt = 0; ; attempt += 1) {
        try {
          return await this.inCallContext(deadline, controller.signal, request);
        } catch (error) {
          // Turned away by Temporal's rate limits, the call was not acted on: sent again after a pause while its
          // deadline leaves room, so a burst (a bulk operation's pages beside other traffic) is slowed, not failed.
          const pause = throttlePauseMs(attempt);
          if (!isThrottled(error) || controller.signal.aborted || this.clock.now() + pause + MIN_ATTEMPT_MS > deadline) throw error;
          await pauseFor(this.clock, pause, controller.signal);
        }
      }
    } catch (error) {
      // A cancelled request fails with gRPC CANCELLED; the caller wants its own reason, not an engine error.
      if (this.closedBy) throw this.closedBy;
      if (callerSignal?.aborted) throw reasonOf(callerSignal);
      throw translateError(error, context);
    } finally {
      this.inFlight.delete(controller);
      callerSignal?.removeEventListener('abort', abort);
    }
  }

  /**
   * Runs `request` with the deadline and the signal in one call-context scope of the connection. The client's
   * withDeadline and withAbortSignal would nest two, each an async function and an AsyncLocalStorage run: about half
   * of this wrapper's CPU per call (docs/performance.md, figure 9). A connection without that storage gets the nested pair.
   */
  private inCallContext<T>(deadline: number, signal: AbortSignal, request: () => Promise<T>): Promise<T> {
    const storage = (this.client.connection as Partial<Pick<Connection, 'callContextStorage'>> | undefined)?.callContextStorage;
    if (!storage) return this.client.withDeadline(deadline, () => this.client.withAbortSignal(signal, request));
    return storage.run({ ...storage.getStore(), deadline, abortSignal: signal }, request);
  }
}

/** Time a throttled call's next attempt needs at least, or it is not sent. */
const MIN_ATTEMPT_MS = 250;
const FIRST_THROTTLE_PAUSE_MS = 100;
const MAX_THROTTLE_PAUSE_MS = 2000;

/** Doubling from 100 ms to at most 2 s, each between 80 and 100 % of that, so callers throttled together spread out. */
export function throttlePauseMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(MAX_THROTTLE_PAUSE_MS, FIRST_THROTTLE_PAUSE_MS * 2 ** attempt);
  return Math.round(ceiling * (0.8 + 0.2 * random()));
}

/** Resolves after `ms`; rejects at once when `signal` aborts, leaving no timer behind. */
function pauseFor(clock: Clock, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const aborted = (): void => {
      cancelTimer();
      reject(reasonOf(signal));
    };
    const cancelTimer = clock.setTimer(ms, () => {
      signal.removeEventListener('abort', aborted);
      resolve();
    });
    signal.addEventListener('abort', aborted, { once: true });
  });
}

function closedError(): Error {
  return new EngineUnavailableError('The Temporal engine is closed');
}

function reasonOf(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

