import type { FlowgateApi } from './api/flowgateApi.js';
import type { CoreDeps } from './useCases/deps.js';
import { runAndWait } from './useCases/runAndWait.js';
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
import { historyPage, historyStream } from './useCases/readHistory.js';
import { fetchTrace } from './useCases/fetchTrace.js';
import { readiness } from './useCases/readiness.js';
import { bulkControl } from './useCases/bulkControl.js';
import { rerun } from './useCases/rerun.js';
import { bulkRerun } from './useCases/bulkRerun.js';
import { requireWorkflow, type Access, type AccessKey } from './domain/access.js';
import type { IdempotencyOptions, StartRequest } from './api/requests.js';
import { ownKey } from './idempotency/fingerprint.js';
import { requireRunAccess, runVisibleTo } from './useCases/runAccess.js';
import { createSchedule, updateSchedule } from './useCases/schedules/writeSchedules.js';
import { getSchedule, listSchedules } from './useCases/schedules/readSchedules.js';
import { backfillSchedule, deleteSchedule, setSchedulePaused, triggerSchedule } from './useCases/schedules/controlSchedules.js';

/** Binds every use case to its ports; `forKey` binds them again for an API key (docs/security.md). */
export function createFlowgateApi(coreDeps: CoreDeps): FlowgateApi {
  // Feedback, terminate and reset name their operation and every value that makes it: with a key, that is the fingerprint.
  const keyed = createKeyedControl(coreDeps);
  // A key's binding is made once and kept while the key object lives (a reload of the key file makes new ones).
  const byKey = new WeakMap<AccessKey, FlowgateApi>();
  const forKey = (key: AccessKey): FlowgateApi => {
    let api = byKey.get(key);
    if (api === undefined) byKey.set(key, (api = bind(key)));
    return api;
  };
  // What a key may touch is checked before an Idempotency-Key's kept answer is looked up: a retry is no way around it.
  const mayRead = (access: Access, run: Parameters<typeof requireRunAccess>[2]) => requireRunAccess(coreDeps, access, run);
  const mayStart = (access: Access, request: StartRequest) =>
    requireWorkflow(access, { catalog: request.catalog ?? coreDeps.defaultCatalog, workflowName: request.workflowName });

  function bind(access: Access): FlowgateApi {
    // What the key starts and changes is recorded under its id (docs/security.md, Who did what).
    const deps = access === undefined ? coreDeps : { ...coreDeps, actor: access.id };
    // An Idempotency-Key names the requests of the API key that sends it: the same value from another key is another
    // key, which neither joins nor is refused by (nor learns of) the first key's run (docs/idempotency.md).
    const own = <O extends IdempotencyOptions | undefined>(options: O): O =>
      access === undefined || options?.idempotencyKey === undefined ? options : { ...options, idempotencyKey: ownKey(access.id, options.idempotencyKey) };
    return {
      runAndWait: async (request, version, options) => {
        mayStart(access, request);
        return runAndWait(deps, request, version, own(options));
      },
      start: async (request, options) => {
        mayStart(access, request);
        return start(deps, request, own(options));
      },
      sendFeedback: async (workflowId, payload, options) => {
        await mayRead(access, { workflowId });
        return keyed(own(options), ['feedback', workflowId, payload], (idempotency) => sendFeedback(deps, workflowId, payload, idempotency));
      },
      terminate: async (run, reason, options) => {
        await mayRead(access, run);
        return keyed(own(options), ['terminate', run.workflowId, run.runId ?? null, reason ?? null], (idempotency) => terminate(deps, run, reason, idempotency));
      },
      reset: async (run, stepName, reason, options) => {
        await mayRead(access, run);
        return keyed(own(options), ['reset', run.workflowId, run.runId ?? null, stepName, reason ?? null], (idempotency) =>
          reset(deps, run, stepName, reason, idempotency),
        );
      },
      listWorkflows: (catalog) => listWorkflows(deps, catalog, access),
      stop: async (run) => {
        await mayRead(access, run);
        return stop(deps, run);
      },
      getResult: async (run, version, wait) => {
        await mayRead(access, run);
        return getResult(deps, run, version, wait);
      },
      getStatus: (run) => getStatus(deps, run, access),
      getInput: async (run) => {
        await mayRead(access, run);
        return getInput(deps, run);
      },
      listRuns: (request) => listRuns(deps, request, access),
      historyPage: async (run, request) => {
        await mayRead(access, run);
        return historyPage(deps, run, request);
      },
      historyStream: async (run, request) => {
        await mayRead(access, run);
        return historyStream(deps, run, request);
      },
      fetchTrace: async (run) => {
        await mayRead(access, run);
        return fetchTrace(deps, run);
      },
      readiness: () => readiness(deps),
      bulkControl: (action, request) => bulkControl(deps, action, request, access),
      // The rerun starts the run's own workflow in its own catalog: seeing the run is being allowed to start it.
      rerun: (run, request, options) => rerun(deps, run, request, own(options), runVisibleTo(access)),
      bulkRerun: (request) => bulkRerun(deps, request, access),
      createSchedule: (request) => createSchedule(deps, request, access),
      listSchedules: (request) => listSchedules(deps, request, access),
      getSchedule: (scheduleId) => getSchedule(deps, scheduleId, access),
      updateSchedule: (scheduleId, request) => updateSchedule(deps, scheduleId, request, access),
      deleteSchedule: (scheduleId) => deleteSchedule(deps, scheduleId, access),
      setSchedulePaused: (scheduleId, paused, note) => setSchedulePaused(deps, scheduleId, paused, note, access),
      triggerSchedule: (scheduleId, overlap) => triggerSchedule(deps, scheduleId, overlap, access),
      backfillSchedule: (scheduleId, request) => backfillSchedule(deps, scheduleId, request, access),
      forKey,
    };
  }
  return bind(undefined);
}
