import { token } from './token.js';

/** One POST of a run's callback (docs/callbacks.md): the body is sent as given, byte for byte, on every attempt. */
export interface CallbackPost {
  url: string;
  /** The JSON text of the run's v2 result. */
  body: string;
  /** `<workflowId>:<runId>`, sent as `Idempotency-Key` (percent-encoded where a header cannot carry it: docs/callbacks.md). */
  idempotencyKey: string;
}

export interface CallbackSender {
  /**
   * Sends one attempt, signed as webhook calls are (docs/callbacks.md). Rejects on a network error or a non-2xx answer;
   * a 4xx rejects with NonRetryableError (the receiver refused the call: repeating it cannot help).
   */
  deliver(post: CallbackPost): Promise<void>;
}

export const CALLBACK_SENDER = token<CallbackSender>('CallbackSender');
