import { createHmac } from 'node:crypto';
import { NonRetryableError } from '../../core/definition/failures.js';
import type { CallbackPost, CallbackSender } from '../../ports/callbackSender.js';
import type { WebhookCall, WebhookSender } from '../../ports/webhookSender.js';

export interface FetchWebhookSenderOptions {
  /** WEBHOOK_SIGNING_SECRET: when set, webhook calls and run callbacks carry `X-Flowgate-Signature` and `X-Flowgate-Timestamp`. */
  signingSecret?: string;
  /** Deadline of one call. @default 10000 */
  timeoutMs?: number;
  /** Epoch seconds for the timestamp header. @default Date.now()/1000 */
  nowSeconds?: () => number;
}

/** The HMAC webhook calls and callbacks carry (docs/callbacks.md): hex SHA-256 over `<timestamp>.<raw body>`. */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * POSTs webhook calls and run callbacks with the global fetch (undici), both signed the same way. 5xx and network
 * errors are retried by the caller (the engine, or the callback delivery); 4xx are not.
 */
export class FetchWebhookSender implements WebhookSender, CallbackSender {
  private readonly timeoutMs: number;
  private readonly nowSeconds: () => number;

  constructor(private readonly options: FetchWebhookSenderOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    if (!(this.timeoutMs > 0)) throw new RangeError('FetchWebhookSender: options.timeoutMs must be positive');
    this.nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  }

  async send(call: WebhookCall): Promise<void> {
    const body = JSON.stringify({
      workflowId: call.workflowId,
      runId: call.runId,
      workflowName: call.workflowName,
      payload: call.payload ?? null,
    });
    await this.post(call.url, body, call.idempotencyKey, 'webhook target');
  }

  async deliver(post: CallbackPost): Promise<void> {
    await this.post(post.url, post.body, post.idempotencyKey, 'callback receiver');
  }

  private async post(url: string, body: string, idempotencyKey: string, target: string): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'idempotency-key': idempotencyKey };
    if (this.options.signingSecret) {
      const timestamp = this.nowSeconds();
      headers['x-flowgate-timestamp'] = String(timestamp);
      headers['x-flowgate-signature'] = webhookSignature(this.options.signingSecret, timestamp, body);
    }
    const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
    await response.body?.cancel();
    if (response.status >= 500) throw new Error(`${target} answered ${response.status}`);
    if (response.status >= 400) throw new NonRetryableError(`${target} refused the call with ${response.status}`);
  }
}
