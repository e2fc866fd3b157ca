export * from './token.js';
export * from './engine.js';
export * from './traceStore.js';
export * from './clock.js';
export * from './ids.js';
export * from './logger.js';
export * from './webhookSender.js';
export * from './runObserver.js';
