import type { Context } from '@temporalio/activity';
import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { WorkflowDetails } from '../../../core/definition/hooks.js';
import type { Logger } from '../../../ports/logger.js';
import { WORKFLOW_DETAILS_HEADER } from '../protocol.js';

/** What describe tells of a run, for an attempt scheduled without the details header. */
export type RunDescriptionLookup = (workflowId: string, runId: string) => Promise<Pick<WorkflowDetails, 'startTime' | 'runStartTime' | 'parent' | 'root'>>;

/**
 * The activity end of sandbox/workflowDetailsHeader.ts: an activity interceptor reads the header of each attempt, and
 * the attempt's code asks for the details by its Context. An attempt scheduled by a worker without hooks (a rolling
 * deploy that adds them) has no header: its details come from the activity's info and describe, where attempt is
 * taken as 1 and the first run as this run, since describe does not report them. When even describe fails, the attempt
 * runs without hooks rather than fail for their sake.
 */
export class WorkflowDetailsCarrier {
  private readonly fromHeader = new WeakMap<Context, WorkflowDetails>();

  constructor(
    private readonly describeRun: RunDescriptionLookup,
    private readonly logger: Logger,
  ) {}

  readonly interceptor: ActivityInterceptorsFactory = (context) => ({
    inbound: {
      execute: (input, next) => {
        const header = input.headers[WORKFLOW_DETAILS_HEADER];
        if (header) this.fromHeader.set(context, defaultPayloadConverter.fromPayload<WorkflowDetails>(header));
        return next(input);
      },
    },
  });

  async detailsOf(context: Context): Promise<WorkflowDetails | undefined> {
    const carried = this.fromHeader.get(context);
    if (carried) return carried;
    const { workflowExecution, workflowType } = context.info;
    const workflowId = workflowExecution?.workflowId ?? '';
    const runId = workflowExecution?.runId ?? '';
    let described: Awaited<ReturnType<RunDescriptionLookup>>;
    try {
      described = await this.describeRun(workflowId, runId);
    } catch (error) {
      this.logger.warn('no workflow details for a step attempt; it runs without hooks', {
        workflowId,
        runId,
        activityType: context.info.activityType,
        error: error instanceof Error ? error.message : String(error),
      });
      return undefined;
    }
    return {
      attempt: 1,
      firstExecutionRunId: runId,
      ...(described.parent ? { parent: described.parent } : {}),
      ...(described.root ? { root: described.root } : {}),
      runId,
      runStartTime: described.runStartTime,
      startTime: described.startTime,
      workflowId,
      workflowType: workflowType ?? '',
    };
  }
}
