import type { FlowgateApi } from './api/flowgateApi.js';
import type { CoreDeps } from './useCases/deps.js';
import { runSync, runSyncWithKey } from './useCases/runSync.js';
import { start, startWithKey } from './useCases/start.js';
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
  const once = createKeyedControl(deps);
  return {
    runSync: (request, version) => runSync(deps, request, version),
    start: (request) => start(deps, request),
    listWorkflows: (catalog) => listWorkflows(deps, catalog),
    sendFeedback: (workflowId, payload) => sendFeedback(deps, workflowId, payload),
    stop: (run) => stop(deps, run),
    terminate: (run, reason) => terminate(deps, run, reason),
    reset: (run, stepName, reason) => reset(deps, run, stepName, reason),
    getResult: (run, version, wait) => getResult(deps, run, version, wait),
    getStatus: (run) => getStatus(deps, run),
    getInput: (run) => getInput(deps, run),
    listRuns: (request) => listRuns(deps, request),
    historyPage: (run, request) => historyPage(deps, run, request),
    historyStream: (run, request) => historyStream(deps, run, request),
    fetchTrace: (run) => fetchTrace(deps, run),
    readiness: () => readiness(deps),
    bulkControl: (action, request) => bulkControl(deps, action, request),
    rerun: (run, request) => rerun(deps, run, request),
    bulkRerun: (request) => bulkRerun(deps, request),
    runSyncWithKey: (request, version, key) => runSyncWithKey(deps, request, version, key),
    startWithKey: (request, key) => startWithKey(deps, request, key),
    sendFeedbackWithKey: (workflowId, payload, key) =>
      once(key, ['feedback', workflowId, payload], (idempotency) => sendFeedback(deps, workflowId, payload, idempotency)),
    terminateWithKey: (run, reason, key) =>
      once(key, ['terminate', run.workflowId, run.runId ?? null, reason ?? null], (idempotency) => terminate(deps, run, reason, idempotency)),
    resetWithKey: (run, stepName, reason, key) =>
      once(key, ['reset', run.workflowId, run.runId ?? null, stepName, reason ?? null], (idempotency) => reset(deps, run, stepName, reason, idempotency)),
  };
}
