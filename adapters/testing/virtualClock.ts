import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../../ports/clock.js';

interface Timer {
  at: number;
  seq: number;
  callback: () => void;
}

/**
 * Lets the work a fired timer released run before the next one fires: workflow code resumes in microtasks, a step
 * it then calls starts in the next turns. Several macrotask turns, as chains hop through hooks and stores.
 */
export async function settle(turns = 5): Promise<void> {
  for (let turn = 0; turn < turns; turn += 1) await nextTurn();
}

/**
 * A clock that moves only when told to (flowgate/testing): timers fire in the order they are due (ties in the order
 * they were set), each followed by the work it releases. `now()` starts at `start` and never moves by itself.
 */
export class VirtualClock implements Clock {
  private current: number;
  private timers: Timer[] = [];
  private seq = 0;
  private readonly listeners = new Set<() => void>();

  constructor(start: Date | number = Date.now()) {
    this.current = typeof start === 'number' ? start : start.getTime();
    if (!Number.isFinite(this.current)) throw new TypeError('VirtualClock: start must be a valid date or epoch milliseconds');
  }

  now(): number {
    return this.current;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer: Timer = { at: this.current + (Number.isNaN(ms) ? 0 : Math.max(0, ms)), seq: (this.seq += 1), callback };
    this.timers.push(timer);
    for (const listener of this.listeners) listener();
    return () => {
      this.timers = this.timers.filter((candidate) => candidate !== timer);
    };
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** When the next timer is due (epoch ms), or undefined when none is pending. */
  nextTimerAt(): number | undefined {
    return this.next()?.at;
  }

  /** Moves time forward by `ms`, firing every timer due by then in order, each followed by the work it releases. */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`VirtualClock.advance: ms must be a finite number >= 0, got ${String(ms)}`);
    await this.advanceTo(this.current + ms);
  }

  /** Moves time forward to `time`, firing every timer due by then in order. A time in the past is refused. */
  async advanceTo(time: Date | number): Promise<void> {
    const target = typeof time === 'number' ? time : time.getTime();
    if (!(target >= this.current)) throw new RangeError(`VirtualClock.advanceTo: ${new Date(target).toISOString()} is before now (${new Date(this.current).toISOString()})`);
    await settle();
    for (let due = this.next(); due && due.at <= target; due = this.next()) await this.fire(due);
    this.current = target;
    await settle();
  }

  /** Jumps to the next timer's time and fires it (then the work it releases). False when no timer is pending. */
  async fireNext(): Promise<boolean> {
    const due = this.next();
    if (!due) return false;
    await this.fire(due);
    return true;
  }

  /** Called whenever a timer is set (flowgate/testing's time skipping wakes up on it). Returns the unsubscriber. */
  onTimerSet(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private next(): Timer | undefined {
    let earliest: Timer | undefined;
    for (const timer of this.timers) if (!earliest || timer.at < earliest.at || (timer.at === earliest.at && timer.seq < earliest.seq)) earliest = timer;
    return earliest;
  }

  private async fire(timer: Timer): Promise<void> {
    this.timers = this.timers.filter((candidate) => candidate !== timer);
    this.current = Math.max(this.current, timer.at);
    timer.callback();
    await settle();
  }
}
