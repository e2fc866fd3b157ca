import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Clock } from '../../ports/clock.js';

/** The test double of the Clock port: time moves only when the test says so, and timers fire in due order. */
export class ManualClock implements Clock {
  private timers: { at: number; seq: number; callback: () => void }[] = [];
  private seq = 0;

  /** Starts at `current` (epoch ms; by default 2026-01-01). */
  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer = { at: this.current + Math.max(0, ms), seq: (this.seq += 1), callback };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Timers set and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.timers.length;
  }

  /** Sets the time without firing any timer (a test about what a read sees at a given moment). */
  set(at: number): void {
    this.current = at;
  }

  /** Moves time forward by `ms`, firing due timers one by one and letting the code under test react to each. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    await flush();
    for (;;) {
      const due = this.earliest();
      if (!due || due.at > target) break;
      this.fire(due);
      await flush();
    }
    this.current = target;
    await flush();
  }

  /** Fires the earliest pending timer now, whenever it is due (moving time to it), and lets the code react. */
  async fireNext(): Promise<void> {
    await flush();
    const due = this.earliest();
    if (!due) throw new Error('ManualClock: no timer is pending');
    this.fire(due);
    await flush();
  }

  /**
   * Fires timers in due order until `promise` settles, and returns what it settles to: for code that pauses between
   * attempts. Throws when the promise waits for something no timer of this clock will bring.
   */
  async settle<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await flush();
      if (settled) return promise;
      if (!this.earliest()) throw new Error('ManualClock: the promise waits for something no timer of this clock brings');
      await this.fireNext();
    }
  }

  private earliest(): { at: number; seq: number; callback: () => void } | undefined {
    return [...this.timers].sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
  }

  private fire(timer: { at: number; callback: () => void }): void {
    this.timers = this.timers.filter((t) => t !== timer);
    this.current = Math.max(this.current, timer.at);
    timer.callback();
  }
}

/** Lets every pending promise chain run (several macrotask turns, for chains that hop through hooks). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i += 1) await nextMacrotask();
}

/**
 * The system clock, which a test can move ahead: for code on a real server whose timers must really fire, where a
 * test only needs what is cached or remembered to be older (a cache's expiry) without waiting for it.
 */
export class SkippableSystemClock implements Clock {
  private aheadMs = 0;

  now(): number {
    return Date.now() + this.aheadMs;
  }

  setTimer(ms: number, callback: () => void): () => void {
    const timer = setTimeout(callback, ms);
    return () => clearTimeout(timer);
  }

  /** Moves the time `ms` ahead of the system's, for good. */
  skip(ms: number): void {
    this.aheadMs += ms;
  }
}
