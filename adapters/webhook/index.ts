export { FetchWebhookSender, MAX_REDIRECTS, type FetchWebhookSenderOptions } from './fetchWebhookSender.js';
export { guardedAgent, type GuardedAgentOptions, type ResolveHost } from './guardedAgent.js';
export {
  idempotencyKeyHeader,
  legacyWebhookSignature,
  MAX_WEBHOOK_KEY_BYTES,
  MIN_WEBHOOK_KEY_BYTES,
  standardWebhookSignature,
  WEBHOOK_SECRET_PREFIX,
  webhookMessageId,
  webhookSecretKey,
  webhookSecretProblem,
} from './standardWebhooks.js';
