import { ServerBusyError } from './transportErrors.js';

/** Counts open server-sent event streams against a cap; each stream holds a slot until it ends, however it ends. */
export class EventStreamSlots {
  private open = 0;

  /** `onChange`: told +1 when a slot is taken and -1 when it is released (the open-streams gauge). */
  constructor(
    private readonly max: number,
    private readonly onChange?: (delta: 1 | -1) => void,
  ) {}

  get openStreams(): number {
    return this.open;
  }

  /** Takes a slot, or refuses with 503 when all are taken. The returned release is safe to call more than once. */
  acquire(): () => void {
    if (this.open >= this.max) {
      throw new ServerBusyError(`Too many open event streams (limit ${this.max}); retry shortly or read the history as JSON pages.`);
    }
    this.open += 1;
    this.onChange?.(1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.open -= 1;
      this.onChange?.(-1);
    };
  }
}
