import { token } from './token.js';

/** The call a waiting workflow sends to its webhook target (docs/api.md, "Webhook calls made by workflows"). */
export interface WebhookCall {
  url: string;
  workflowId: string;
  runId: string;
  workflowName: string;
  payload: unknown;
  /** `<workflowId>:<runId>:<step>`, sent as `Idempotency-Key` (percent-encoded where a header cannot carry it: docs/api.md). */
  idempotencyKey: string;
}

export interface WebhookSender {
  /** Sends one attempt; rejects on a network error or a non-2xx answer (the engine retries as for any step). */
  send(call: WebhookCall): Promise<void>;
}

export const WEBHOOK_SENDER = token<WebhookSender>('WebhookSender');
