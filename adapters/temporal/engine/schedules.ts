import {
  ScheduleAlreadyRunning,
  ScheduleNotFoundError as TemporalScheduleNotFound,
  type ScheduleDescription as TemporalScheduleDescription,
  type ScheduleOptions,
  type ScheduleOverlapPolicy,
} from '@temporalio/client';
import { EngineError, ScheduleNotFoundError } from '../../../core/domain/errors.js';
import {
  backfillTooLong,
  LISTED_ACTIONS,
  LISTED_FIRE_TIMES,
  MAX_BACKFILL_FIRES,
  OVERLAP_POLICIES,
  scheduleExists,
  mergedScheduleChange,
  scheduleNotFound,
  type OverlapPolicy,
  type ScheduleDefinition,
  type ScheduleDescription,
  type ScheduleSpec,
} from '../../../core/domain/schedule.js';
import type { ListSchedulesQuery, ScheduleEngine, ScheduleList } from '../../../ports/schedules.js';
import { assertReadableSpec, cronFields, FireTimes } from '../../schedules/fireTimes.js';
import type { TemporalCalls } from './calls.js';
import type { PageTokens } from '../../pageTokens.js';
import { decodeTemporalToken, encodeTemporalToken } from './pageTokens.js';

/**
 * What flowgate keeps with a Temporal Schedule, in its action's memo (a schedule's own memo cannot change after it is
 * created, the action's can): the spec as the user wrote it (Temporal turns cron text into calendars and would read
 * back in another form), and the keys that created and last changed it. Every run it starts carries it too.
 */
const SCHEDULE_MEMO_KEY = 'flowgate.schedule';

interface ScheduleMemo {
  spec: { calendar: ScheduleSpec['calendar']; timezone: string; startAt: string | null; endAt: string | null; jitterMs: number };
  createdBy?: string;
  updatedBy?: string;
}

const TEMPORAL_OVERLAP: Readonly<Record<OverlapPolicy, ScheduleOverlapPolicy>> = {
  skip: 'SKIP',
  buffer_one: 'BUFFER_ONE',
  buffer_all: 'BUFFER_ALL',
  cancel_other: 'CANCEL_OTHER',
  terminate_other: 'TERMINATE_OTHER',
  allow_all: 'ALLOW_ALL',
};

/**
 * Schedules on Temporal (docs/schedules.md): each is a Temporal Schedule, which Temporal fires with no flowgate process
 * running (only the catalog's workers). Its action starts the workflow on the catalog's task queue under the id
 * `<scheduleId>`, to which Temporal appends the fire time; Temporal tags each run with TemporalScheduledById.
 */
export class TemporalSchedules implements ScheduleEngine {
  constructor(
    private readonly calls: TemporalCalls,
    private readonly tokens: PageTokens,
    /** The definition's run time limit as its catalog publishes it (a start's, too). */
    private readonly runTimeoutMs: (catalog: string, workflowName: string) => Promise<number | undefined>,
  ) {}

  async create(definition: ScheduleDefinition, actor?: string): Promise<ScheduleDescription> {
    const options = await this.optionsOf(definition, { ...(actor === undefined ? {} : { createdBy: actor, updatedBy: actor }) });
    await this.calls.call(async () => {
      try {
        await this.calls.schedules.create(options);
      } catch (error) {
        if (error instanceof ScheduleAlreadyRunning) throw scheduleExists(definition.scheduleId, { cause: error });
        throw error;
      }
    });
    return this.describe(definition.scheduleId);
  }

  async describe(scheduleId: string): Promise<ScheduleDescription> {
    return descriptionOf(await this.own(scheduleId));
  }

  /**
   * The schedule as Temporal describes it, when flowgate made it: one made by another program in the namespace (the
   * Temporal CLI, another application) is not flowgate's to list, show, change or delete, and answers 404 as a
   * schedule that does not exist would.
   */
  private async own(scheduleId: string): Promise<TemporalScheduleDescription> {
    const description = await this.call(scheduleId, (handle) => handle.describe());
    if (memoOf(description) === undefined) throw scheduleNotFound(scheduleId);
    return description;
  }

  async list(query: ListSchedulesQuery): Promise<ScheduleList> {
    const scope = JSON.stringify(['schedules', query.workflowName ?? null]);
    const position = query.pageToken === undefined ? undefined : this.tokens.read(scope, query.pageToken, isPosition);
    const response = await this.calls.call(() =>
      this.calls.service.listSchedules({
        namespace: this.calls.namespace,
        maximumPageSize: query.limit,
        ...(position ? { nextPageToken: decodeTemporalToken(position.r) } : {}),
      }),
    );
    // Temporal lists from its visibility store: a schedule just made may show a moment later.
    const ids = (response.schedules ?? [])
      .filter((entry) => query.workflowName === undefined || entry.info?.workflowType?.name === query.workflowName)
      .map((entry) => entry.scheduleId ?? '')
      .filter((id) => id !== '');
    const described = await Promise.all(ids.map((id) => this.describe(id).catch((error: unknown) => (error instanceof ScheduleNotFoundError ? undefined : Promise.reject(error)))));
    const token = response.nextPageToken && response.nextPageToken.length > 0 ? this.tokens.issue(scope, { r: encodeTemporalToken(response.nextPageToken) }) : null;
    return {
      schedules: described.filter((schedule): schedule is ScheduleDescription => schedule !== undefined).sort((a, b) => (a.definition.scheduleId < b.definition.scheduleId ? -1 : 1)),
      nextPageToken: token,
    };
  }

  async update(definition: ScheduleDefinition, actor?: string, base?: ScheduleDefinition): Promise<ScheduleDescription> {
    const current = await this.own(definition.scheduleId);
    return this.replace(definition, base ?? descriptionOf(current).definition, actor);
  }

  /**
   * Writes what `requested` changed of `base` over the schedule as Temporal describes it at the write (the SDK reads
   * it again in update() and sends no conflict token): a pause Temporal applied on a failed run, or another API
   * process's change, made since `base` was read, stays unless this request changes that part too.
   */
  private async replace(requested: ScheduleDefinition, base: ScheduleDefinition, actor: string | undefined): Promise<ScheduleDescription> {
    // Refused here as on the embedded engine, by the same words, before Temporal would refuse it in its own.
    assertReadableSpec(requested.spec);
    const runTimeoutMs = await this.runTimeoutMs(requested.catalog, requested.workflowName);
    await this.call(requested.scheduleId, (handle) =>
      handle.update((latest) => {
        const merged = mergedScheduleChange(requested, base, descriptionOf(latest).definition);
        const memo = memoOf(latest);
        const updatedBy = actor ?? memo?.updatedBy;
        const keys = { ...(memo?.createdBy === undefined ? {} : { createdBy: memo.createdBy }), ...(updatedBy === undefined ? {} : { updatedBy }) };
        // The limit looked up for the requested workflow, or the schedule's own when the merge kept another's.
        const sameWorkflow = merged.workflowName === requested.workflowName && merged.catalog === requested.catalog;
        const { spec, action, policies } = scheduleOptions(merged, keys, sameWorkflow ? runTimeoutMs : runTimeoutOf(latest));
        return { spec, action, policies, state: { paused: merged.paused, note: merged.note } };
      }),
    );
    return this.describe(requested.scheduleId);
  }

  async delete(scheduleId: string): Promise<void> {
    await this.own(scheduleId);
    await this.call(scheduleId, (handle) => handle.delete());
  }

  async setPaused(scheduleId: string, paused: boolean, note: string, actor?: string): Promise<ScheduleDescription> {
    const base = descriptionOf(await this.own(scheduleId)).definition;
    // One update sets the state and records the key (pause and unpause alone could not say who).
    return this.replace({ ...base, paused, note }, base, actor);
  }

  async trigger(scheduleId: string, overlap: OverlapPolicy | undefined): Promise<void> {
    // Named every time: the SDK sends allow_all for a trigger without one, not the schedule's policy.
    const { policy } = (await this.describe(scheduleId)).definition;
    await this.call(scheduleId, (handle) => handle.trigger(TEMPORAL_OVERLAP[overlap ?? policy.overlap]));
  }

  async backfill(scheduleId: string, range: { startAt: Date; endAt: Date }, overlap: OverlapPolicy | undefined): Promise<number> {
    const schedule = await this.describe(scheduleId);
    // Counted as the embedded engine counts them, and refused past the same bound, before Temporal is asked.
    const fires = new FireTimes(schedule.definition.spec).between(range.startAt, range.endAt, MAX_BACKFILL_FIRES).length;
    if (fires > MAX_BACKFILL_FIRES) {
      throw backfillTooLong();
    }
    const policy = TEMPORAL_OVERLAP[overlap ?? schedule.definition.policy.overlap];
    await this.call(scheduleId, (handle) => handle.backfill([{ start: range.startAt, end: range.endAt, overlap: policy }]));
    return fires;
  }

  /** A call on one schedule's handle; Temporal's "not found" is ScheduleNotFoundError. */
  private call<T>(scheduleId: string, request: (handle: ReturnType<TemporalCalls['schedules']['getHandle']>) => Promise<T>): Promise<T> {
    return this.calls.call(async () => {
      try {
        return await request(this.calls.schedules.getHandle(scheduleId));
      } catch (error) {
        if (error instanceof TemporalScheduleNotFound) throw scheduleNotFound(scheduleId, { cause: error });
        throw error;
      }
    });
  }

  private async optionsOf(definition: ScheduleDefinition, keys: Pick<ScheduleMemo, 'createdBy' | 'updatedBy'>): Promise<ScheduleOptions> {
    // Refused here as on the embedded engine, by the same words, before Temporal would refuse it in its own.
    assertReadableSpec(definition.spec);
    return scheduleOptions(definition, keys, await this.runTimeoutMs(definition.catalog, definition.workflowName));
  }
}

/** The schedule as Temporal is told it: the definition, flowgate's memo (the spec as given, who made and changed it). */
function scheduleOptions(definition: ScheduleDefinition, keys: Pick<ScheduleMemo, 'createdBy' | 'updatedBy'>, runTimeoutMs: number | undefined): ScheduleOptions {
  const { spec, policy } = definition;
  const memo: ScheduleMemo = {
    spec: { calendar: spec.calendar, timezone: spec.timezone, startAt: spec.startAt?.toISOString() ?? null, endAt: spec.endAt?.toISOString() ?? null, jitterMs: spec.jitterMs },
    ...keys,
  };
  return {
    scheduleId: definition.scheduleId,
    spec: {
      ...(spec.calendar.kind === 'cron'
        ? { cronExpressions: spec.calendar.expressions.map(temporalCron) }
        : { intervals: [{ every: spec.calendar.everyMs, offset: spec.calendar.offsetMs }] }),
      timezone: spec.timezone,
      ...(spec.startAt ? { startAt: spec.startAt } : {}),
      ...(spec.endAt ? { endAt: spec.endAt } : {}),
      ...(spec.jitterMs > 0 ? { jitter: spec.jitterMs } : {}),
    },
    action: {
      type: 'startWorkflow',
      workflowType: definition.workflowName,
      taskQueue: definition.catalog,
      workflowId: definition.scheduleId,
      args: [definition.input],
      memo: { [SCHEDULE_MEMO_KEY]: memo },
      ...(runTimeoutMs === undefined ? {} : { workflowRunTimeout: runTimeoutMs }),
    },
    policies: { overlap: TEMPORAL_OVERLAP[policy.overlap], catchupWindow: policy.catchupWindowMs, pauseOnFailure: policy.pauseOnFailure },
    state: { paused: definition.paused, note: definition.note },
  };
}

/** Temporal reads a sixth field as the year: seconds go first of seven (docs/schedules.md, Cron). */
function temporalCron(expression: string): string {
  const fields = cronFields(expression);
  return fields.length === 6 ? [...fields, '*'].join(' ') : fields.join(' ');
}

/** The run time limit the schedule's action gives its runs now, as Temporal describes it. */
function runTimeoutOf(description: TemporalScheduleDescription): number | undefined {
  const action = description.action as { workflowRunTimeout?: number };
  return typeof action.workflowRunTimeout === 'number' ? action.workflowRunTimeout : undefined;
}

function memoOf(description: TemporalScheduleDescription): ScheduleMemo | undefined {
  const action = description.action as { memo?: Record<string, unknown> };
  const memo = action.memo?.[SCHEDULE_MEMO_KEY];
  return memo !== null && typeof memo === 'object' ? (memo as ScheduleMemo) : undefined;
}

const OVERLAP_OF = Object.fromEntries(OVERLAP_POLICIES.map((policy) => [TEMPORAL_OVERLAP[policy], policy])) as Record<string, OverlapPolicy>;

function descriptionOf(description: TemporalScheduleDescription): ScheduleDescription {
  const memo = memoOf(description);
  const action = description.action as { workflowType: string; taskQueue: string; args?: unknown[] };
  if (memo === undefined) throw new EngineError(`Temporal schedule "${description.scheduleId}" was not made by flowgate (its action has no ${SCHEDULE_MEMO_KEY} memo)`);
  const { info, state, policies } = description;
  return {
    definition: {
      scheduleId: description.scheduleId,
      workflowName: action.workflowType,
      catalog: action.taskQueue,
      input: action.args?.[0] ?? null,
      spec: {
        calendar: memo.spec.calendar,
        timezone: memo.spec.timezone,
        ...(memo.spec.startAt === null ? {} : { startAt: new Date(memo.spec.startAt) }),
        ...(memo.spec.endAt === null ? {} : { endAt: new Date(memo.spec.endAt) }),
        jitterMs: memo.spec.jitterMs,
      },
      policy: { overlap: (policies.overlap && OVERLAP_OF[policies.overlap]) || 'skip', catchupWindowMs: policies.catchupWindow, pauseOnFailure: policies.pauseOnFailure },
      paused: state.paused,
      note: state.note ?? '',
    },
    state: {
      paused: state.paused,
      note: state.note ?? '',
      actionCount: info.numActionsTaken,
      missedCount: info.numActionsMissedCatchupWindow + info.numActionsSkippedOverlap,
      nextFireTimes: state.paused ? [] : info.nextActionTimes.slice(0, LISTED_FIRE_TIMES),
      recentActions: info.recentActions.slice(-LISTED_ACTIONS).map((result) => ({
        scheduledAt: result.scheduledAt,
        startedAt: result.takenAt,
        run: { workflowId: result.action.workflow.workflowId, runId: result.action.workflow.firstExecutionRunId },
      })),
      runningRuns: info.runningActions.map((running) => ({ workflowId: running.workflow.workflowId, runId: running.workflow.firstExecutionRunId })),
    },
    createdAt: info.createdAt,
    updatedAt: info.lastUpdatedAt ?? info.createdAt,
    ...(memo.createdBy === undefined ? {} : { createdBy: memo.createdBy }),
    ...(memo.updatedBy === undefined ? {} : { updatedBy: memo.updatedBy }),
  };
}

function isPosition(value: unknown): value is { r: string } {
  return typeof value === 'object' && value !== null && typeof (value as { r?: unknown }).r === 'string';
}
