import { defaultPayloadConverter, workflowInfo, type WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { WORKFLOW_DETAILS_HEADER } from '../protocol.js';
import { workflowDetailsOf } from '../workflowDetails.js';

/**
 * A workflow interceptor module (bundleCatalog adds it for workers with hooks): every scheduled step carries the run's
 * workflowDetails in a header, because an activity's own info lacks most of them (attempt, first run, parent, root,
 * start times) and the attempt may run in another worker process than the workflow task that scheduled it.
 */
export const interceptors: WorkflowInterceptorsFactory = () => ({
  outbound: [
    {
      scheduleActivity: (input, next) =>
        next({ ...input, headers: { ...input.headers, [WORKFLOW_DETAILS_HEADER]: defaultPayloadConverter.toPayload(workflowDetailsOf(workflowInfo())) } }),
    },
  ],
});
