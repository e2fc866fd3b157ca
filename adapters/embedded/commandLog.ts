import { NondeterminismError } from '../../core/definition/failures.js';
import type { Payload } from './payload.js';
import type { StepTrace } from './stepTrace.js';

/** What a run asked the engine for; replay (reset, restart) matches these by kind and name, in call order. */
export type CommandKind = 'step' | 'timer' | 'webhook' | 'child';

export type CommandOutcome = { ok: true; value: Payload } | { ok: false; error: unknown };

/**
 * Where a command stood while it was under way: what resuming it after a restart needs (its history events are
 * already written, so it picks up where it was instead of starting again).
 */
export type CommandProgress =
  /** `inFlight`: an attempt had started and not ended; `failedAt`: when the last attempt failed (its retry is pending). */
  | { kind: 'step'; stepEventId: number; attempt: number; inFlight: boolean; failedAt?: number }
  | { kind: 'timer'; timerId: string; dueAt: number }
  /** `dueAt`: when a wait with a time limit gives up. */
  | { kind: 'webhook'; dueAt?: number }
  | { kind: 'child'; childWorkflowId: string; childRunId: string };

export interface CommandRecord {
  /** Its place in the run's call order (0-based). */
  readonly index: number;
  readonly kind: CommandKind;
  readonly name: string;
  /** How many commands of the run had completed when this one was called. */
  readonly calledAfter: number;
  /** Its place in the run's completion order (1-based), once completed. */
  completion?: number;
  /** The last history event id when it completed (for a step: its step_completed or final step_failed). */
  completionEventId?: number;
  outcome?: CommandOutcome;
  /** Steps: their trace entry. */
  trace?: StepTrace;
  /** Webhook waits: whether the reply came from the feedback buffer (a timeout consumes nothing). */
  consumedFeedback?: boolean;
  /** While under way: what a restart needs to resume it. */
  progress?: CommandProgress;
}

/**
 * A run that starts from another run's commands: a reset (the new run replays the old one's commands completed by
 * the point and runs the rest again) or a restart (the same run replays everything it completed and resumes what was
 * under way).
 */
export interface ReplayPlan {
  readonly reason: 'reset' | 'restart';
  readonly commands: readonly CommandRecord[];
  /** The completion number up to which outcomes are replayed. */
  readonly point: number;
}

/**
 * How a call is served: `new` runs it for real; `replayed` hands back its recorded outcome (in completion order, see
 * replay.ts); `resumed` (restart only) picks it up where it was when the run stopped.
 */
export type CallMode = 'new' | 'replayed' | 'resumed';

export interface CommandCall {
  record: CommandRecord;
  mode: CallMode;
}

export type ResetTarget = { kind: 'found'; record: CommandRecord } | { kind: 'not_found' } | { kind: 'not_completed' };

/**
 * The per-run command log. Completion numbers give "had completed by the reset point" an exact meaning even
 * for commands without a history event of their own (a webhook wait served from the buffer).
 */
export class CommandLog {
  readonly records: CommandRecord[];
  private completions: number;

  constructor(
    private readonly replay?: ReplayPlan,
    /** Told of every record that was added or changed (the run's store writes it). */
    private readonly onChange: (record: CommandRecord) => void = () => {},
  ) {
    this.records = [];
    // Everything this run completes for real happens after the point.
    this.completions = replay?.point ?? 0;
  }

  /**
   * Records a call; throws NondeterminismError when a replaying run calls something else than the run it replays.
   * `calledAfter`: the completions the workflow code has seen, which during a replay are the replayed ones so far.
   */
  call(kind: CommandKind, name: string, calledAfter = this.completions): CommandCall {
    const index = this.records.length;
    const old = this.replay?.commands[index];
    if (old && this.replay && this.mustCallAgain(old)) {
      if (old.kind !== kind || old.name !== name) {
        throw new NondeterminismError(
          `After a ${this.replay.reason} the workflow called ${kind} "${name}" as command ${index + 1}, but the original run called ${old.kind} "${old.name}" there`,
        );
      }
      if (old.completion !== undefined && old.completion <= this.replay.point) {
        return this.add({ ...old, ...(old.trace ? { trace: { ...old.trace } } : {}) }, 'replayed');
      }
      // Under way when the run stopped: a restart picks it up with what it had done (its events are in the history).
      if (this.replay.reason === 'restart') return this.add({ ...old, ...(old.progress ? { progress: { ...old.progress } } : {}) }, 'resumed');
      // Called before the reset point but not finished by then: it runs again, as Temporal reschedules it.
      return this.add({ index, kind, name, calledAfter: old.calledAfter }, 'new');
    }
    return this.add({ index, kind, name, calledAfter }, 'new');
  }

  complete(record: CommandRecord, outcome: CommandOutcome, lastEventId: number): void {
    if (record.completion !== undefined) return;
    this.completions += 1;
    record.completion = this.completions;
    record.completionEventId = lastEventId;
    record.outcome = outcome;
    this.onChange(record);
  }

  /** The record's progress changed (a step attempt began or failed, a child started). */
  progressed(record: CommandRecord, progress: CommandProgress): void {
    record.progress = progress;
    this.onChange(record);
  }

  /** How many commands have completed. */
  get completed(): number {
    return this.completions;
  }

  /** A command the replayed run called before the point that this run never called (checked at its end). */
  missingReplay(): CommandRecord | undefined {
    if (!this.replay) return undefined;
    return this.replay.commands.slice(this.records.length).find((old) => this.mustCallAgain(old));
  }

  /**
   * Whether replaying code must call `old` again at its place: after a restart every command the run had called;
   * after a reset those called before the point (what came later may well differ).
   */
  private mustCallAgain(old: CommandRecord): boolean {
    return this.replay !== undefined && (this.replay.reason === 'restart' || old.calledAfter < this.replay.point);
  }

  /** The last successful completion of `stepName`, the point a reset resumes after. */
  resetTarget(stepName: string): ResetTarget {
    return resetTargetOf(this.records, stepName);
  }

  private add(record: CommandRecord, mode: CallMode): CommandCall {
    this.records.push(record);
    this.onChange(record);
    return { record, mode };
  }
}

/** The last successful completion of `stepName` among a run's commands, the point a reset resumes after. */
export function resetTargetOf(records: readonly CommandRecord[], stepName: string): ResetTarget {
  const calls = records.filter((record) => record.kind === 'step' && record.name === stepName);
  if (calls.length === 0) return { kind: 'not_found' };
  let target: CommandRecord | undefined;
  for (const call of calls) {
    if (call.outcome?.ok && call.completion !== undefined && (!target || call.completion > (target.completion ?? 0))) {
      target = call;
    }
  }
  return target ? { kind: 'found', record: target } : { kind: 'not_completed' };
}
