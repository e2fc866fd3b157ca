import { DEFAULT_RETRY_POLICY } from '../../../core/definition/retry.js';
import { WEBHOOK_STEP_NAME } from '../protocol.js';
import type { StepMeta } from './stepActivity.js';

/**
 * The internal step that POSTs a webhook call before a wait, as the embedded engine defines it (runLifecycle.ts):
 * 5 attempts, 500 ms apart at first, 30 s per attempt. Shared by the sandbox (options) and the worker (activity).
 */
export const WEBHOOK_STEP_META: StepMeta = Object.freeze({
  kind: 'internal_step',
  name: WEBHOOK_STEP_NAME,
  retry: Object.freeze({ ...DEFAULT_RETRY_POLICY, maximumAttempts: 5, initialIntervalMs: 500 }),
  timeoutMs: 30_000,
});
