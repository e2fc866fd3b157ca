/**
 * The workflow-sandbox runtime: what the generated entry module (worker/entrySource.ts) and the generated step
 * stubs (worker/stepStubSource.ts) import. Everything here runs inside Temporal's deterministic sandbox.
 */
export { createWorkflowDispatcher, type DispatcherOptions } from './workflowDispatcher.js';
export { catalogWorkflow } from './catalogWorkflow.js';
export { stepActivity, type StepMeta, type StepStub } from './stepActivity.js';
export type { FlowgateSinks, RunClosedMessage, SelfClosedStatus } from './runSink.js';
