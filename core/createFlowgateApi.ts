import type { FlowgateApi } from './api/flowgateApi.js';
import type { CoreDeps } from './useCases/deps.js';
import { runSync } from './useCases/runSync.js';
import { start } from './useCases/start.js';
import { createKeyedControl } from './idempotency/keyedControl.js';
import { listWorkflows } from './useCases/listWorkflows.js';
import { sendFeedback } from './useCases/sendFeedback.js';
import { stop } from './useCases/stop.js';
import { terminate } from './useCases/terminate.js';
import { reset } from './useCases/reset.js';
import { getResult } from './useCases/getResult.js';
import { getStatus } from './useCases/getStatus.js';
import { getInput } from './useCases/getInput.js';
import { listRuns } from './useCases/listRuns.js';
import { historyPage, historyStream } from './useCases/history.js';
import { fetchTrace } from './useCases/fetchTrace.js';
import { readiness } from './useCases/readiness.js';
import { bulkControl } from './useCases/bulkControl.js';
import { rerun } from './useCases/rerun.js';
import { bulkRerun } from './useCases/bulkRerun.js';

/** Binds every use case to its ports. */
export function createFlowgateApi(deps: CoreDeps): FlowgateApi {
  // Feedback, terminate and reset name their operation and every value that makes it: with a key, that is the fingerprint.
  const keyed = createKeyedControl(deps);
  return {
    runSync: (request, version, options) => runSync(deps, request, version, options),
    start: (request, options) => start(deps, request, options),
    sendFeedback: (workflowId, payload, options) =>
      keyed(options, ['feedback', workflowId, payload], (idempotency) => sendFeedback(deps, workflowId, payload, idempotency)),
    terminate: (run, reason, options) =>
      keyed(options, ['terminate', run.workflowId, run.runId ?? null, reason ?? null], (idempotency) => terminate(deps, run, reason, idempotency)),
    reset: (run, stepName, reason, options) =>
      keyed(options, ['reset', run.workflowId, run.runId ?? null, stepName, reason ?? null], (idempotency) => reset(deps, run, stepName, reason, idempotency)),
    listWorkflows: (catalog) => listWorkflows(deps, catalog),
    stop: (run) => stop(deps, run),
    getResult: (run, version, wait) => getResult(deps, run, version, wait),
    getStatus: (run) => getStatus(deps, run),
    getInput: (run) => getInput(deps, run),
    listRuns: (request) => listRuns(deps, request),
    historyPage: (run, request) => historyPage(deps, run, request),
    historyStream: (run, request) => historyStream(deps, run, request),
    fetchTrace: (run) => fetchTrace(deps, run),
    readiness: () => readiness(deps),
    bulkControl: (action, request) => bulkControl(deps, action, request),
    rerun: (run, request, options) => rerun(deps, run, request, options),
    bulkRerun: (request) => bulkRerun(deps, request),
  };
}
