import { request, type Agent } from 'undici';
import { NonRetryableError, OutboundAddressRefusedError } from '../../core/definition/failures.js';
import { EMPTY_ALLOWLIST, type OutboundAllowlist } from '../../core/domain/outboundAddress.js';
import { redactUrl } from '../../core/domain/urlRedaction.js';
import type { CallbackPost, CallbackSender } from '../../ports/callbackSender.js';
import type { WebhookCall, WebhookSender } from '../../ports/webhookSender.js';
import { guardedAgent, type ResolveHost } from './guardedAgent.js';
import { idempotencyKeyHeader, legacyWebhookSignature, standardWebhookSignature, webhookMessageId, webhookSecretKey } from './standardWebhooks.js';

export interface FetchWebhookSenderOptions {
  /**
   * WEBHOOK_SIGNING_SECRET: `whsec_` secrets (standardWebhooks.ts), one, or two while one replaces the other. With
   * any, webhook calls and run callbacks carry the Standard Webhooks headers, with one signature per secret.
   * @default none: calls are not signed
   */
  signingSecrets?: readonly string[];
  /**
   * WEBHOOK_LEGACY_SIGNATURE (deprecated): also send `X-Flowgate-Timestamp` and `X-Flowgate-Signature` as releases
   * before Standard Webhooks did, signed with the first secret. @default false
   */
  legacySignature?: boolean;
  /**
   * OUTBOUND_ALLOWLIST: hosts and networks called even though the address rules refuse them (loopback, private, ...).
   * @default empty: only addresses the rules allow are called
   */
  allowlist?: OutboundAllowlist;
  /** Resolves host names before the address check. @default the system resolver (dns.lookup) */
  resolve?: ResolveHost;
  /** Deadline of one call, redirects included. @default 10000 */
  timeoutMs?: number;
  /** Epoch seconds for the timestamp header. @default Date.now()/1000 */
  nowSeconds?: () => number;
}

/** Redirects followed per call (fetch follows 20; a receiver needs one or two). */
export const MAX_REDIRECTS = 5;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

interface Hop {
  url: URL;
  method: 'POST' | 'GET';
  body: string | undefined;
}

/**
 * POSTs webhook calls and run callbacks with undici, both signed the same way (Standard Webhooks, standardWebhooks.ts),
 * and only to addresses the outbound rules allow (guardedAgent.ts): a refused address, host name or redirect rejects
 * with OutboundAddressRefusedError before a byte is sent there. Redirects are followed by hand, as fetch would
 * (307/308 repeat the POST; 301, 302 and 303 turn it into a GET without a body), each hop a new check, at most
 * MAX_REDIRECTS. 5xx and network errors are retried by the caller (the engine, or the callback delivery); 4xx are not.
 */
export class FetchWebhookSender implements WebhookSender, CallbackSender {
  private readonly timeoutMs: number;
  private readonly nowSeconds: () => number;
  private readonly agent: Agent;
  private readonly signingKeys: readonly Buffer[];
  private readonly legacySignature: boolean;

  constructor(options: FetchWebhookSenderOptions = {}) {
    this.signingKeys = (options.signingSecrets ?? []).map(webhookSecretKey);
    this.legacySignature = options.legacySignature ?? false;
    if (this.legacySignature && this.signingKeys.length === 0) {
      throw new RangeError('FetchWebhookSender: options.legacySignature needs options.signingSecrets');
    }
    this.timeoutMs = options.timeoutMs ?? 10_000;
    if (!(this.timeoutMs > 0)) throw new RangeError('FetchWebhookSender: options.timeoutMs must be positive');
    this.nowSeconds = options.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
    this.agent = guardedAgent({
      allowlist: options.allowlist ?? EMPTY_ALLOWLIST,
      connectTimeoutMs: this.timeoutMs,
      ...(options.resolve ? { resolve: options.resolve } : {}),
    });
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

  /** Closes the kept-alive connections. */
  async close(): Promise<void> {
    await this.agent.close();
  }

  private async post(url: string, body: string, idempotencyKey: string, target: string): Promise<void> {
    const headers = { 'idempotency-key': idempotencyKeyHeader(idempotencyKey) };
    const signed = this.signatureHeaders(idempotencyKey, body);
    const signal = AbortSignal.timeout(this.timeoutMs);
    let hop: Hop = { url: new URL(url), method: 'POST', body };
    for (let redirects = 0; ; redirects += 1) {
      // The signatures are of the body: a hop that dropped it (a GET after a 301, 302 or 303) carries none.
      const response = await this.hop(hop, hop.body === undefined ? headers : { ...headers, ...signed }, signal, url, target);
      await response.body.dump();
      const location = response.headers.location;
      if (REDIRECT_STATUSES.has(response.statusCode) && typeof location === 'string') {
        if (redirects === MAX_REDIRECTS) throw new NonRetryableError(`${target} ${redactUrl(url)} answered with more than ${MAX_REDIRECTS} redirects`);
        hop = this.nextHop(hop, response.statusCode, location, target);
        continue;
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return;
      if (response.statusCode >= 500) throw new Error(`${target} answered ${response.statusCode}`);
      if (response.statusCode >= 400) throw new NonRetryableError(`${target} refused the call with ${response.statusCode}`);
      // 300, 304, a redirect without a Location: nothing took the call, and asking again gets the same answer.
      throw new NonRetryableError(`${target} answered ${response.statusCode} with no redirect to follow`);
    }
  }

  /**
   * A new timestamp, and with it new signatures, on every attempt (the specification's replay protection); the id
   * stays that of the call. Redirect hops repeat the headers of their attempt.
   */
  private signatureHeaders(idempotencyKey: string, body: string): Record<string, string> {
    const [firstKey] = this.signingKeys;
    if (!firstKey) return {};
    const timestamp = this.nowSeconds();
    const id = webhookMessageId(idempotencyKey);
    const headers: Record<string, string> = {
      'webhook-id': id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': this.signingKeys.map((key) => standardWebhookSignature(key, id, timestamp, body)).join(' '),
    };
    if (this.legacySignature) {
      headers['x-flowgate-timestamp'] = String(timestamp);
      headers['x-flowgate-signature'] = legacyWebhookSignature(firstKey, timestamp, body);
    }
    return headers;
  }

  private async hop(hop: Hop, headers: Record<string, string>, signal: AbortSignal, firstUrl: string, target: string) {
    try {
      return await request(hop.url, {
        dispatcher: this.agent,
        method: hop.method,
        headers: hop.body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
        ...(hop.body === undefined ? {} : { body: hop.body }),
        signal,
      });
    } catch (error) {
      if (!(error instanceof OutboundAddressRefusedError)) throw error;
      // The agent knows the host and its address; the message names the call and its URL, redacted like every URL flowgate shows.
      const redirected = hop.url.href === new URL(firstUrl).href ? '' : ` (redirected from ${redactUrl(firstUrl)})`;
      throw new OutboundAddressRefusedError(
        `${target} ${redactUrl(hop.url.href)}${redirected} not called: ${error.message}; OUTBOUND_ALLOWLIST can open it`,
        error.host,
        error.address,
      );
    }
  }

  /** The request a redirect asks for, as fetch makes it; only http and https are followed. */
  private nextHop(previous: Hop, status: number, location: string, target: string): Hop {
    let url: URL;
    try {
      url = new URL(location, previous.url);
    } catch {
      throw new NonRetryableError(`${target} redirected to an invalid URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new NonRetryableError(`${target} redirected to a ${url.protocol} URL`);
    const toGet = status === 303 || ((status === 301 || status === 302) && previous.method === 'POST');
    return toGet ? { url, method: 'GET', body: undefined } : { url, method: previous.method, body: previous.body };
  }
}
