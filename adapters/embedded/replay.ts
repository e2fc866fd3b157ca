import type { CommandRecord, ReplayPlan } from './commandLog.js';

/**
 * Macrotask turns a replay waits, with nothing to deliver, for the workflow code to call the command whose outcome
 * comes next. Code that replays the same decisions calls it within the turn after the outcome before it (it reacts
 * to outcomes in microtasks); a few turns more tolerate a hop through a resolved promise of a library.
 */
const IDLE_TURNS_BEFORE_STALL = 3;

/**
 * Hands a replayed run's recorded outcomes back in the order they originally completed, one per macrotask turn, so
 * the code sees them as it saw them the first time: `Promise.race([slow(), fast()])` is won by the racer that won
 * then, whichever was called first, and what the code calls between two outcomes is called between them again.
 *
 * Outcomes of commands run for real (after a reset, or resumed after a restart) completed after every replayed one the
 * first time: they are held until the replay is over (`done`). One mechanism for resets and restarts (reset.ts; RunLifecycle.restore in runLifecycle.ts).
 */
export class ReplayDelivery {
  /** The replayed commands in completion order. */
  private readonly order: CommandRecord[];
  private delivered = 0;
  private readonly waiting = new Map<number, () => void>();
  private idleTurns = 0;
  private scheduled = false;
  private stopped = false;
  private finish: () => void = () => {};
  /** Resolves once every replayed outcome was handed back (at once when there are none). */
  readonly done: Promise<void>;

  constructor(
    plan: ReplayPlan,
    /** The code did not call the command whose outcome comes next: it no longer makes the same decisions. */
    private readonly onStall: (expected: CommandRecord) => void,
  ) {
    this.order = plan.commands
      .filter((command) => command.completion !== undefined && command.completion <= plan.point)
      .sort((a, b) => (a.completion ?? 0) - (b.completion ?? 0));
    this.done = new Promise((resolve) => (this.finish = resolve));
    if (this.order.length === 0) this.finish();
  }

  /** Whether outcomes are still being handed back. */
  get active(): boolean {
    return this.delivered < this.order.length && !this.stopped;
  }

  /** How many replayed outcomes the code has been handed: the `calledAfter` of what it calls now. */
  get deliveredCount(): number {
    return this.delivered;
  }

  /** Resolves when it is the turn of the replayed command at `index` (the code just called it). */
  turnOf(index: number): Promise<void> {
    return new Promise((resolve) => {
      this.waiting.set(index, resolve);
      this.schedule();
    });
  }

  /** Starts the turns (the code begins running in this turn). */
  start(): void {
    this.schedule();
  }

  /** The run is gone: nothing more is handed back. */
  stop(): void {
    this.stopped = true;
    this.waiting.clear();
  }

  private schedule(): void {
    if (this.scheduled || !this.active) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    this.scheduled = false;
    if (!this.active) return;
    const next = this.order[this.delivered]!;
    const deliver = this.waiting.get(next.index);
    if (!deliver) {
      this.idleTurns += 1;
      if (this.idleTurns > IDLE_TURNS_BEFORE_STALL) {
        this.stop();
        this.onStall(next);
        return;
      }
      this.schedule();
      return;
    }
    this.waiting.delete(next.index);
    this.idleTurns = 0;
    this.delivered += 1;
    deliver();
    if (this.delivered === this.order.length) this.finish();
    else this.schedule();
  }
}
