import { CatalogNotAvailableError, WorkflowNotFoundError } from '../../../core/domain/errors.js';
import type { PinnedRunRef, RunDescription, RunOutcome, RunRef, StartCommand } from '../../../core/domain/run.js';
import {
  backfillTooLong,
  LISTED_ACTIONS,
  LISTED_FIRE_TIMES,
  MAX_BACKFILL_FIRES,
  mergedScheduleChange,
  scheduledWorkflowId,
  scheduleExists,
  scheduleNotFound,
  type OverlapPolicy,
  type ScheduleDefinition,
  type ScheduleDescription,
} from '../../../core/domain/schedule.js';
import type { Clock } from '../../../ports/clock.js';
import type { AwaitOptions } from '../../../ports/engine.js';
import type { Logger } from '../../../ports/logger.js';
import type { Metrics } from '../../../ports/metrics.js';
import type { ListSchedulesQuery, ScheduleEngine, ScheduleList } from '../../../ports/schedules.js';
import type { Tracing } from '../../../ports/tracing.js';
import { FireTimes, jitterOf } from '../../schedules/fireTimes.js';
import { PageTokens } from '../../pageTokens.js';
import { listPage } from './listPage.js';
import { StoreWriteError, unwrittenAnswer, type EngineStore } from '../store/engineStore.js';
import type { StoredSchedule } from './storedSchedule.js';

/** What the schedules need of the engine that keeps them. */
export interface ScheduledRuns {
  start(command: StartCommand): Promise<RunDescription>;
  describe(run: RunRef): Promise<RunDescription>;
  cancel(run: RunRef, identity?: string): Promise<RunDescription>;
  terminate(run: RunRef, reason: string, idempotency?: undefined, identity?: string): Promise<RunDescription>;
  awaitOutcome(run: PinnedRunRef, options: AwaitOptions): Promise<RunOutcome | undefined>;
}


/** A timer never waits longer than this: a far fire time is looked at again, never trusted to one long timer. */
const MAX_TIMER_MS = 3_600_000;
/** How long one wait on a running run lasts before it is begun again (the waits are real-time timers). */
const RUN_WAIT_MS = 3_600_000;
const FAILED_STATUSES = new Set(['failed', 'timed_out']);
/** A fire whose run could not start (no worker serves its catalog yet, a store write failed) is tried again this soon. */
const RETRY_MS = 5_000;

/**
 * The embedded engine's schedules (docs/schedules.md): kept in the engine's store and fired by its own timers on the
 * engine's clock. Every change to a schedule is written before the next fire is looked at, and each fire's run has
 * the workflow id `<scheduleId>-<fire time>`, so a fire acted on before a restart is never started again: a run of that
 * id means the fire happened. After a restart the missed fires within the catch-up window are acted on, the older ones
 * dropped. All work on schedules is done one piece at a time (`serially`), so no two fires race.
 */
export class EmbeddedSchedules implements ScheduleEngine {
  private readonly schedules = new Map<string, StoredSchedule>();
  private readonly fireTimes = new Map<string, FireTimes>();
  private readonly timers = new Map<string, () => void>();
  private readonly watching = new Set<string>();
  /** Schedules whose last fire found no worker for its catalog (warned of if the next try finds none either). */
  private readonly noWorkerOnce = new Set<string>();
  private readonly closing = new AbortController();
  private queue: Promise<unknown> = Promise.resolve();
  /** The store's key, as the engine's run tokens: a page walk goes on across a restart of a durable store. */
  private readonly tokens: PageTokens;

  constructor(
    private readonly runs: ScheduledRuns,
    private readonly store: EngineStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly metrics: Pick<Metrics, 'scheduleAction' | 'scheduleDeleted'>,
    private readonly tracing: Pick<Tracing, 'detached'>,
  ) {
    this.tokens = new PageTokens(store.pageTokenKey);
    for (const schedule of store.loadSchedules()) {
      this.schedules.set(schedule.definition.scheduleId, schedule);
      this.fireTimes.set(schedule.definition.scheduleId, new FireTimes(schedule.definition.spec));
    }
  }

  /** Begins firing: what was missed while the engine was down first (the catch-up window decides), then on time. */
  resume(): void {
    for (const schedule of this.schedules.values()) {
      for (const run of schedule.runningRuns) this.watch(schedule.definition.scheduleId, run);
      void this.serially(() => this.tick(schedule.definition.scheduleId));
    }
  }

  /** A worker began serving `catalog`: fires of its schedules that waited for one are tried now. */
  catalogServed(catalog: string): void {
    for (const schedule of this.schedules.values()) {
      if (schedule.definition.catalog === catalog) void this.serially(() => this.tick(schedule.definition.scheduleId));
    }
  }

  close(): void {
    this.closing.abort();
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
  }

  create(definition: ScheduleDefinition, actor?: string): Promise<ScheduleDescription> {
    return this.serially(() => {
      const { scheduleId } = definition;
      if (this.schedules.has(scheduleId)) throw scheduleExists(scheduleId);
      const fireTimes = new FireTimes(definition.spec);
      const now = new Date(this.clock.now());
      const schedule: StoredSchedule = {
        definition,
        createdAt: now,
        updatedAt: now,
        ...(actor === undefined ? {} : { createdBy: actor, updatedBy: actor }),
        actionCount: 0,
        missedCount: 0,
        recentActions: [],
        runningRuns: [],
        buffered: [],
        handledUpTo: now,
      };
      this.save(schedule);
      this.fireTimes.set(scheduleId, fireTimes);
      this.arm(scheduleId);
      return this.describeNow(schedule);
    });
  }

  async describe(scheduleId: string): Promise<ScheduleDescription> {
    return this.describeNow(this.get(scheduleId));
  }

  async list(query: ListSchedulesQuery): Promise<ScheduleList> {
    const matching = [...this.schedules.values()].filter((schedule) => query.workflowName === undefined || schedule.definition.workflowName === query.workflowName);
    // Only the page's schedules are described: their next fire times are computed, not every schedule's.
    const { page, nextPageToken } = listPage(matching, query, this.tokens);
    return { schedules: page.map((schedule) => this.describeNow(schedule)), nextPageToken };
  }

  update(requested: ScheduleDefinition, actor?: string, base?: ScheduleDefinition): Promise<ScheduleDescription> {
    return this.serially(() => {
      const current = this.get(requested.scheduleId);
      const definition = base ? mergedScheduleChange(requested, base, current.definition) : requested;
      const fireTimes = new FireTimes(definition.spec);
      // A new spec counts from now (its past times were never this schedule's), as does a pause lifted by the update.
      const restart = JSON.stringify(current.definition.spec) !== JSON.stringify(definition.spec) || (current.definition.paused && !definition.paused);
      const changed: StoredSchedule = {
        ...current,
        definition,
        updatedAt: new Date(this.clock.now()),
        ...(actor === undefined ? {} : { updatedBy: actor }),
        ...(restart ? { handledUpTo: new Date(Math.max(this.clock.now(), current.handledUpTo.getTime())) } : {}),
      };
      this.save(changed);
      this.fireTimes.set(definition.scheduleId, fireTimes);
      this.arm(definition.scheduleId);
      return this.describeNow(changed);
    });
  }

  delete(scheduleId: string): Promise<void> {
    return this.serially(() => {
      this.get(scheduleId);
      written(() => this.store.deleteSchedule(scheduleId));
      this.schedules.delete(scheduleId);
      this.fireTimes.delete(scheduleId);
      this.timers.get(scheduleId)?.();
      this.timers.delete(scheduleId);
      this.metrics.scheduleDeleted(scheduleId);
    });
  }

  setPaused(scheduleId: string, paused: boolean, note: string, actor?: string): Promise<ScheduleDescription> {
    return this.serially(() => {
      const current = this.get(scheduleId);
      const now = this.clock.now();
      const changed: StoredSchedule = {
        ...current,
        definition: { ...current.definition, paused, note },
        updatedAt: new Date(now),
        ...(actor === undefined ? {} : { updatedBy: actor }),
        // Fires due while paused do not happen: unpausing starts from now, with nothing to catch up.
        handledUpTo: paused ? current.handledUpTo : new Date(Math.max(now, current.handledUpTo.getTime())),
      };
      this.save(changed);
      this.arm(scheduleId);
      return this.describeNow(changed);
    });
  }

  trigger(scheduleId: string, overlap: OverlapPolicy | undefined, actor?: string): Promise<void> {
    return this.serially(async () => {
      const schedule = this.get(scheduleId);
      await this.act(schedule, new Date(this.clock.now()), overlap ?? schedule.definition.policy.overlap, actor);
    });
  }

  backfill(scheduleId: string, range: { startAt: Date; endAt: Date }, overlap: OverlapPolicy | undefined, actor?: string): Promise<number> {
    return this.serially(async () => {
      const schedule = this.get(scheduleId);
      const times = this.fireTimes.get(scheduleId)!.between(range.startAt, range.endAt, MAX_BACKFILL_FIRES);
      if (times.length > MAX_BACKFILL_FIRES) {
        throw backfillTooLong();
      }
      for (const time of times) await this.act(this.get(scheduleId), time, overlap ?? schedule.definition.policy.overlap, actor);
      return times.length;
    });
  }

  private get(scheduleId: string): StoredSchedule {
    const schedule = this.schedules.get(scheduleId);
    if (schedule === undefined) throw scheduleNotFound(scheduleId);
    return schedule;
  }

  private save(schedule: StoredSchedule): void {
    written(() => this.store.saveSchedule(schedule));
    this.schedules.set(schedule.definition.scheduleId, schedule);
  }

  private describeNow(schedule: StoredSchedule): ScheduleDescription {
    const { definition } = schedule;
    return {
      definition,
      state: {
        paused: definition.paused,
        note: definition.note,
        actionCount: schedule.actionCount,
        missedCount: schedule.missedCount,
        nextFireTimes: definition.paused ? [] : this.nextFireTimes(schedule),
        recentActions: schedule.recentActions.map((action) => ({ ...action, run: { ...action.run } })),
        runningRuns: schedule.runningRuns.map((run) => ({ ...run })),
      },
      createdAt: schedule.createdAt,
      updatedAt: schedule.updatedAt,
      ...(schedule.createdBy === undefined ? {} : { createdBy: schedule.createdBy }),
      ...(schedule.updatedBy === undefined ? {} : { updatedBy: schedule.updatedBy }),
    };
  }

  /**
   * When the next fires will happen, jitter included (as Temporal lists them): a fire whose time has passed but whose
   * jitter has not is still to come.
   */
  private nextFireTimes(schedule: StoredSchedule): Date[] {
    const { scheduleId, spec } = schedule.definition;
    const fireTimes = this.fireTimes.get(scheduleId)!;
    const now = this.clock.now();
    const nominal = fireTimes.upcoming(new Date(Math.max(now - spec.jitterMs, schedule.handledUpTo.getTime())), LISTED_FIRE_TIMES + 1);
    const following = (index: number) => nominal[index + 1] ?? fireTimes.next(nominal[index]!);
    return nominal
      .map((time, index) => new Date(time.getTime() + jitterOf(scheduleId, time, spec.jitterMs, following(index))))
      .filter((time) => time.getTime() > now)
      .slice(0, LISTED_FIRE_TIMES);
  }

  /** Runs `work` after every piece of schedule work before it; its failure is its caller's, not the queue's. */
  private serially<T>(work: () => T | Promise<T>): Promise<T> {
    const done = this.queue.then(work);
    this.queue = done.catch(() => {});
    return done;
  }

  /** Sets the schedule's timer to its next fire time (jitter included), or none while it is paused or has ended. */
  private arm(scheduleId: string, retry = false): void {
    this.timers.get(scheduleId)?.();
    this.timers.delete(scheduleId);
    const schedule = this.schedules.get(scheduleId);
    if (schedule === undefined || schedule.definition.paused || this.closing.signal.aborted) return;
    const fireTimes = this.fireTimes.get(scheduleId)!;
    const next = fireTimes.next(schedule.handledUpTo);
    const untilDue = next === undefined ? undefined : Math.max(0, next.getTime() + jitterOf(scheduleId, next, schedule.definition.spec.jitterMs, fireTimes.next(next)) - this.clock.now());
    // After a failed start, the fire that failed (overdue, or buffered) is tried again in RETRY_MS, or at the next fire
    // time if that comes first; never at once, which would try it again and again while no worker serves the catalog.
    const wait = retry ? Math.min(RETRY_MS, untilDue || RETRY_MS) : untilDue === undefined ? undefined : Math.min(MAX_TIMER_MS, untilDue);
    if (wait === undefined) return;
    // A request arms the timer when it creates, changes or unpauses the schedule: the fires start runs of their own
    // traces, not children of that request (an explicit trigger or backfill stays its request's).
    const fire = () => this.tracing.detached(() => void this.serially(() => this.tick(scheduleId)));
    this.timers.set(scheduleId, this.clock.setTimer(wait, fire));
  }

  /** Acts on every fire time that is due, in order: within the catch-up window by the overlap policy, else dropped. */
  private async tick(scheduleId: string): Promise<void> {
    let retry = false;
    try {
      await this.fireBuffered(scheduleId);
      const fireTimes = this.fireTimes.get(scheduleId);
      let schedule = this.schedules.get(scheduleId);
      while (fireTimes !== undefined && schedule !== undefined && !schedule.definition.paused && !this.closing.signal.aborted) {
        const next = fireTimes.next(schedule.handledUpTo);
        const now = this.clock.now();
        if (next === undefined || next.getTime() + jitterOf(scheduleId, next, schedule.definition.spec.jitterMs, fireTimes.next(next)) > now) break;
        if (now - next.getTime() > schedule.definition.policy.catchupWindowMs) {
          this.save({ ...schedule, missedCount: schedule.missedCount + 1, handledUpTo: next });
          this.metrics.scheduleAction(scheduleId, 'missed');
        } else {
          await this.act(schedule, next, schedule.definition.policy.overlap, undefined, next);
        }
        schedule = this.schedules.get(scheduleId);
      }
      this.noWorkerOnce.delete(scheduleId);
    } catch (error) {
      retry = true;
      // At start the schedules resume before the process's workers register their catalogs: a fire that finds no
      // worker is said only when the retry finds none either, not on every restart.
      const awaitingWorker = error instanceof CatalogNotAvailableError && !this.noWorkerOnce.has(scheduleId);
      if (error instanceof CatalogNotAvailableError) this.noWorkerOnce.add(scheduleId);
      if (!awaitingWorker) this.logger.warn(`A schedule's run could not start; it is tried again in ${RETRY_MS / 1000} s`, { scheduleId, error: (error as Error).message });
    } finally {
      this.arm(scheduleId, retry);
    }
  }

  /**
   * One fire at `time` under `overlap`. `handled` (a fire time of the spec, not a trigger or a backfill) moves the
   * schedule's mark, written with what the fire did.
   */
  private async act(current: StoredSchedule, time: Date, overlap: OverlapPolicy, actor: string | undefined, handled?: Date): Promise<void> {
    const scheduleId = current.definition.scheduleId;
    const running = await this.stillRunning(current.runningRuns);
    let schedule: StoredSchedule = { ...current, runningRuns: running, ...(handled ? { handledUpTo: handled } : {}) };
    if (running.length > 0 && overlap !== 'allow_all') {
      if (overlap === 'skip' || (overlap === 'buffer_one' && schedule.buffered.length > 0)) {
        this.save({ ...schedule, missedCount: schedule.missedCount + 1 });
        this.metrics.scheduleAction(scheduleId, 'skipped');
        return;
      }
      if (overlap === 'cancel_other') for (const run of running) await this.runs.cancel(run, actor).catch(() => undefined);
      if (overlap === 'terminate_other') {
        for (const run of running) await this.runs.terminate(run, `Schedule "${scheduleId}" fired again (overlap: terminate_other)`, undefined, actor).catch(() => undefined);
        schedule = { ...schedule, runningRuns: await this.stillRunning(running) };
      } else {
        // buffer_one keeps one waiting fire, buffer_all every one; cancel_other starts once the cancelled run closes.
        this.save({ ...schedule, buffered: overlap === 'buffer_all' ? [...schedule.buffered, time] : [time] });
        this.metrics.scheduleAction(scheduleId, 'buffered');
        return;
      }
    }
    await this.fire(schedule, time);
  }

  /**
   * Starts the fire's run, unless a run of its id exists (the fire happened before a restart), and records it; a
   * buffered fire (`fromBuffer`, the buffer's first) leaves the buffer in the same write.
   */
  private async fire(schedule: StoredSchedule, time: Date, fromBuffer = false): Promise<void> {
    const { definition } = schedule;
    const workflowId = scheduledWorkflowId(definition.scheduleId, time);
    let run = await this.runs.describe({ workflowId }).catch((error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return undefined;
      throw error;
    });
    if (run === undefined || run.scheduleId !== definition.scheduleId) {
      try {
        run = await this.runs.start({ workflowName: definition.workflowName, catalog: definition.catalog, workflowId, input: definition.input, scheduleId: definition.scheduleId });
      } catch (error) {
        // Not acted on: the mark stays before this fire, which is tried again (tick).
        this.metrics.scheduleAction(definition.scheduleId, 'failed');
        throw error;
      }
    }
    const pinned = { workflowId: run.workflowId, runId: run.runId };
    if (schedule.recentActions.some((action) => action.run.runId === pinned.runId)) {
      // A second fire within the second of one already acted on (a trigger again): its run is that fire's, which is
      // counted; as on Temporal, the fire is dropped, not counted twice or watched twice.
      if (fromBuffer) this.save({ ...schedule, buffered: schedule.buffered.slice(1) });
      return;
    }
    const action = { scheduledAt: time, startedAt: run.startedAt, run: pinned };
    this.save({
      ...schedule,
      ...(fromBuffer ? { buffered: schedule.buffered.slice(1) } : {}),
      actionCount: schedule.actionCount + 1,
      recentActions: [...schedule.recentActions, action].slice(-LISTED_ACTIONS),
      runningRuns: run.status === 'running' ? [...schedule.runningRuns, pinned] : schedule.runningRuns,
    });
    this.metrics.scheduleAction(definition.scheduleId, 'started');
    if (run.status === 'running') this.watch(definition.scheduleId, pinned);
  }

  private async stillRunning(runs: readonly PinnedRunRef[]): Promise<PinnedRunRef[]> {
    const open: PinnedRunRef[] = [];
    for (const run of runs) {
      const described = await this.runs.describe(run).catch(() => undefined);
      if (described?.status === 'running') open.push(run);
    }
    return open;
  }

  /** Waits for a run the schedule started to close: then pauseOnFailure applies, and a buffered fire starts. */
  private watch(scheduleId: string, run: PinnedRunRef): void {
    const key = `${scheduleId}\n${run.runId}`;
    if (this.watching.has(key)) return;
    this.watching.add(key);
    const signal = this.closing.signal;
    // What the run's close sets going (a buffered fire) is the schedule's, not the request that started the run.
    void this.tracing.detached(async () => {
      let outcome: RunOutcome | undefined;
      while (outcome === undefined && !signal.aborted && this.schedules.has(scheduleId)) {
        outcome = await this.runs.awaitOutcome(run, { timeoutMs: RUN_WAIT_MS, followChain: true, signal }).catch(() => undefined);
        if (outcome === undefined && !signal.aborted) {
          // A run gone from the store cannot be waited on: it is not running.
          const described = await this.runs.describe(run).catch(() => undefined);
          if (described === undefined || described.status !== 'running') break;
        }
      }
      this.watching.delete(key);
      if (!signal.aborted) await this.serially(() => this.closed(scheduleId, run, outcome)).catch(() => {});
    });
  }

  private async closed(scheduleId: string, run: PinnedRunRef, outcome: RunOutcome | undefined): Promise<void> {
    const current = this.schedules.get(scheduleId);
    if (current === undefined) return;
    let schedule: StoredSchedule = { ...current, runningRuns: current.runningRuns.filter((open) => open.runId !== run.runId) };
    if (outcome && FAILED_STATUSES.has(outcome.run.status) && schedule.definition.policy.pauseOnFailure && !schedule.definition.paused) {
      const note = `Paused: run ${outcome.run.workflowId} ended ${outcome.run.status} (pauseOnFailure)`;
      schedule = { ...schedule, definition: { ...schedule.definition, paused: true, note } };
      this.logger.warn('A schedule paused itself: a run it started failed', { scheduleId, workflowId: outcome.run.workflowId });
    }
    this.save(schedule);
    let retry = false;
    try {
      await this.fireBuffered(scheduleId);
    } catch (error) {
      retry = true;
      this.logger.warn(`A schedule's buffered run could not start; it is tried again in ${RETRY_MS / 1000} s`, { scheduleId, error: (error as Error).message });
    }
    this.arm(scheduleId, retry);
  }

  /**
   * The first buffered fire, once no run of the schedule is open. It leaves the buffer in the write that records its
   * run, never before: a start that fails (or a process that dies before it) keeps it, to be tried again (tick).
   */
  private async fireBuffered(scheduleId: string): Promise<void> {
    const schedule = this.schedules.get(scheduleId);
    const waiting = schedule?.buffered[0];
    if (schedule === undefined || waiting === undefined || schedule.runningRuns.length > 0 || this.closing.signal.aborted) return;
    await this.fire(schedule, waiting, true);
  }
}

/**
 * A store write that failed (a full disk) answers as an engine out of service (503, as a run's start does): the change
 * that needed it is not made, in the store or in memory.
 */
function written(write: () => void): void {
  try {
    write();
  } catch (error) {
    if (error instanceof StoreWriteError) throw unwrittenAnswer(error);
    throw error;
  }
}
