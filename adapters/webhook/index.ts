export { FetchWebhookSender, webhookSignature, type FetchWebhookSenderOptions } from './fetchWebhookSender.js';
