/** flowgate/testing: test your workflows on the embedded engine, with a clock that skips time (docs/testing.md). */
export {
  createTestEnvironment,
  type TestEnvironment,
  type TestEnvironmentOptions,
  type TestResult,
  type RunOptions,
  type LogLine,
} from './createTestEnvironment.js';
export { VirtualClock, MemoryTraceStore } from '../../adapters/testing/index.js';
export type { StepReplacement } from '../embed/createFlowgate.js';
export type { WebhookCall, WebhookSender } from '../../ports/webhookSender.js';
export type { CallbackPost, CallbackSender } from '../../ports/callbackSender.js';
export type { HistoryEvent } from '../../core/domain/history.js';
export type { TraceRecord, TraceStep } from '../../core/domain/trace.js';
