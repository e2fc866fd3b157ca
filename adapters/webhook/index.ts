export { FetchWebhookSender, MAX_REDIRECTS, webhookSignature, type FetchWebhookSenderOptions } from './fetchWebhookSender.js';
export { guardedAgent, type GuardedAgentOptions, type ResolveHost } from './guardedAgent.js';
