import { NondeterminismError } from '../../core/definition/failures.js';
import type { Payload } from './payload.js';
import type { StepTrace } from './stepTrace.js';

/** What a run asked the engine for; reset replays these by call order. */
export type CommandKind = 'step' | 'timer' | 'webhook' | 'child';

export type CommandOutcome = { ok: true; value: Payload } | { ok: false; error: unknown };

export interface CommandRecord {
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
}

/** A reset: the old run's commands and the completion number of the step it resets to. */
export interface ReplayPlan {
  readonly commands: readonly CommandRecord[];
  readonly point: number;
}

export interface CommandCall {
  record: CommandRecord;
  /** Set when the command completed in the old run before the reset point: its outcome is returned as is. */
  replayed: boolean;
}

export type ResetTarget = { kind: 'found'; record: CommandRecord } | { kind: 'not_found' } | { kind: 'not_completed' };

/**
 * The per-run command log. Completion numbers give "had completed by the reset point" an exact meaning even
 * for commands without a history event of their own (a webhook wait served from the buffer).
 */
export class CommandLog {
  readonly records: CommandRecord[] = [];
  private completions: number;

  constructor(private readonly replay?: ReplayPlan) {
    // Everything this run completes for real happens after the reset point.
    this.completions = replay?.point ?? 0;
  }

  /** Records a call; throws NondeterminismError when a replayed run calls something else than the old one did. */
  call(kind: CommandKind, name: string): CommandCall {
    const index = this.records.length;
    const old = this.replay?.commands[index];
    if (old && this.replay && old.calledAfter < this.replay.point) {
      if (old.kind !== kind || old.name !== name) {
        throw new NondeterminismError(
          `After a reset the workflow called ${kind} "${name}" as command ${index + 1}, but the original run called ${old.kind} "${old.name}"`,
        );
      }
      if (old.completion !== undefined && old.completion <= this.replay.point) {
        const record: CommandRecord = { ...old, ...(old.trace ? { trace: { ...old.trace } } : {}) };
        this.records.push(record);
        return { record, replayed: true };
      }
      // Called before the reset point but not finished by then: it runs again, as Temporal reschedules it.
      const record: CommandRecord = { kind, name, calledAfter: old.calledAfter };
      this.records.push(record);
      return { record, replayed: false };
    }
    const record: CommandRecord = { kind, name, calledAfter: this.completions };
    this.records.push(record);
    return { record, replayed: false };
  }

  complete(record: CommandRecord, outcome: CommandOutcome, lastEventId: number): void {
    if (record.completion !== undefined) return;
    this.completions += 1;
    record.completion = this.completions;
    record.completionEventId = lastEventId;
    record.outcome = outcome;
  }

  /** A command the old run called before the reset point that this run never called (checked at its end). */
  missingReplay(): CommandRecord | undefined {
    if (!this.replay) return undefined;
    const { commands, point } = this.replay;
    return commands.slice(this.records.length).find((old) => old.calledAfter < point);
  }

  /** The last successful completion of `stepName`, the point a reset resumes after. */
  resetTarget(stepName: string): ResetTarget {
    const calls = this.records.filter((record) => record.kind === 'step' && record.name === stepName);
    if (calls.length === 0) return { kind: 'not_found' };
    let target: CommandRecord | undefined;
    for (const call of calls) {
      if (call.outcome?.ok && call.completion !== undefined && (!target || call.completion > (target.completion ?? 0))) {
        target = call;
      }
    }
    return target ? { kind: 'found', record: target } : { kind: 'not_completed' };
  }
}
