import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { PayloadTooLargeError, ValidationError } from '../../../core/domain/errors.js';
import { assertWorkflowId } from '../../../core/domain/ids.js';
import type { PinnedRunRef, RunDescription, StartCommand } from '../../../core/domain/run.js';
import type { Clock } from '../../../ports/clock.js';
import type { Logger } from '../../../ports/logger.js';
import { CALLBACK_MEMO_KEY, callbackWorkflowId, catalogWorkflowId } from '../protocol.js';
import type { TemporalCalls } from './calls.js';
import { GrpcCode, grpcCodeOf, messageChain } from './grpcErrors.js';
import { idempotencyMemo } from './idempotencyMemo.js';
import { rerunMemo } from './rerunMemo.js';
import { STARTED_BY_SEARCH_ATTRIBUTE, startedByKey, startedByMemo } from './startedByMemo.js';

/**
 * The client's (internal) way to set a start's request id: Temporal answers a start retried with the same request id
 * with the run it started instead of starting another or failing. Temporal's own Nexus helpers set it the same way;
 * the Idempotency-Key tests prove it against a real server on every upgrade.
 */
const START_OPTIONS = Symbol.for('__temporal_internal_client_workflow_start_options');

/** Keyword search attribute the dev server registers (scripts/infra), so operators can filter runs by catalog. */
export const CATALOG_SEARCH_ATTRIBUTE = 'FlowgateCatalog';
const catalogKey = defineSearchAttributeKey(CATALOG_SEARCH_ATTRIBUTE, SearchAttributeType.KEYWORD);
/** Ids of the catalog registry's workflows: a user run under one would hide or hijack a catalog. */
/** Ids of flowgate's own workflows on Temporal (catalog registry, callback deliveries): a user run must not take one. */
const RESERVED_ID_PREFIXES = [catalogWorkflowId(''), callbackWorkflowId('')];

/**
 * Starts runs: workflow type on the catalog's task queue, the id reusable once closed but never while a run of it
 * is open. Tags each run with FlowgateCatalog; on a cluster without that attribute it says so once and starts
 * untagged (the run list filters by TaskQueue, so nothing depends on the tag).
 */
export class RunStarter {
  private catalogAttribute = true;

  constructor(
    private readonly calls: TemporalCalls,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The definition's run time limit as its catalog publishes it: Temporal enforces it from the start request. */
    private readonly runTimeoutMs: (catalog: string, workflowName: string) => Promise<number | undefined>,
    /** Reads a run back: a keyed start may have returned an earlier run, whose memo says which request made it. */
    private readonly describe: (run: PinnedRunRef) => Promise<RunDescription>,
    /** Temporal's per-payload limit when no claim-check store takes larger inputs; undefined: no check. */
    private readonly maxInputBytes?: number,
  ) {}

  async start(command: StartCommand): Promise<RunDescription> {
    const workflowId = assertWorkflowId(command.workflowId);
    const reserved = RESERVED_ID_PREFIXES.find((prefix) => workflowId.startsWith(prefix));
    if (reserved !== undefined) {
      const message = `workflowId must not start with "${reserved}" (reserved for flowgate's own workflows)`;
      throw new ValidationError(message, { issues: [{ code: 'reserved_workflow_id', path: ['workflowId'], message }] });
    }
    this.checkInputSize(command.input);
    const runTimeoutMs = await this.runTimeoutMs(command.catalog, command.workflowName);
    const runId = await this.startWorkflow(command, runTimeoutMs, this.catalogAttribute);
    if (command.idempotency) return this.describe({ workflowId, runId });
    return {
      workflowId,
      runId,
      workflowName: command.workflowName,
      catalog: command.catalog,
      status: 'running',
      startedAt: new Date(this.clock.now()),
      closedAt: null,
      firstRunId: runId,
      ...(command.rerunOf ? { rerunOf: { workflowId: command.rerunOf.workflowId, runId: command.rerunOf.runId } } : {}),
      ...(command.startedBy === undefined ? {} : { startedBy: command.startedBy }),
    };
  }

  /** Refused here, fast and by name, instead of by Temporal's blob or gRPC limit half-way through a start. */
  private checkInputSize(input: unknown): void {
    if (this.maxInputBytes === undefined) return;
    const bytes = Buffer.byteLength(JSON.stringify(input) ?? '');
    if (bytes > this.maxInputBytes) {
      throw new PayloadTooLargeError(
        `The input is ${bytes} bytes of JSON, more than the ${this.maxInputBytes} bytes Temporal takes per payload ` +
          '(TEMPORAL_MAX_PAYLOAD_BYTES); configure remote traces (TRACE_S3_BUCKET) to pass larger inputs as claim checks',
      );
    }
  }

  private async startWorkflow(command: StartCommand, runTimeoutMs: number | undefined, tagged: boolean): Promise<string> {
    const { calls } = this;
    try {
      const handle = await calls.call(
        () =>
          calls.workflows.start(command.workflowName, {
            taskQueue: command.catalog,
            workflowId: command.workflowId,
            args: [command.input],
            workflowIdReusePolicy: 'ALLOW_DUPLICATE',
            workflowIdConflictPolicy: 'FAIL',
            // A timed-out run ends timed_out, as on the embedded engine; continued runs inherit the limit.
            ...(runTimeoutMs === undefined ? {} : { workflowRunTimeout: runTimeoutMs }),
            ...(tagged ? { typedSearchAttributes: searchAttributesOf(command) } : {}),
            // The worker delivers the callback (sandbox/runCallback.ts); the memo keeps it with the run through resets.
            ...(command.callback || command.idempotency || command.rerunOf || command.startedBy !== undefined
              ? {
                  memo: {
                    ...(command.callback ? { [CALLBACK_MEMO_KEY]: { url: command.callback.url, retryForMs: command.callback.retryForMs } } : {}),
                    ...(command.idempotency ? idempotencyMemo(command.idempotency) : {}),
                    ...(command.rerunOf ? rerunMemo(command.rerunOf) : {}),
                    ...(command.startedBy === undefined ? {} : startedByMemo(command.startedBy)),
                  },
                }
              : {}),
            ...(command.idempotency ? { [START_OPTIONS]: { requestId: command.idempotency.requestId } } : {}),
          }),
        { workflowId: command.workflowId },
      );
      return handle.firstExecutionRunId;
    } catch (error) {
      if (!tagged || !isMissingCatalogAttribute(error)) throw error;
      this.catalogAttribute = false;
      this.logger.warn(`Temporal namespace lacks the ${CATALOG_SEARCH_ATTRIBUTE} or ${STARTED_BY_SEARCH_ATTRIBUTE} search attribute; runs start without them`, {
        namespace: calls.namespace,
      });
      return this.startWorkflow(command, runTimeoutMs, false);
    }
  }
}

/** The run's search attributes: its catalog, and the API key that starts it. */
function searchAttributesOf(command: StartCommand) {
  const catalog = { key: catalogKey, value: command.catalog };
  return command.startedBy === undefined ? [catalog] : [catalog, { key: startedByKey, value: command.startedBy }];
}

/** "Namespace … has no mapping defined for search attribute FlowgateCatalog" (INVALID_ARGUMENT). */
function isMissingCatalogAttribute(error: unknown): boolean {
  const message = messageChain(error);
  return grpcCodeOf(error) === GrpcCode.INVALID_ARGUMENT && (message.includes(CATALOG_SEARCH_ATTRIBUTE) || message.includes(STARTED_BY_SEARCH_ATTRIBUTE));
}
