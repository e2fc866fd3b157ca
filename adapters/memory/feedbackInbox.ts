import { jsonCopy } from './json.js';

export interface ReceivedFeedback {
  readonly payload: unknown;
  /** Its signal_received event; a reset re-delivers the replies received after its point. */
  readonly eventId: number;
}

/**
 * Webhook replies of one run: a FIFO buffer (a reply may arrive before the run waits for it) and the FIFO of
 * waits not yet served. Everything ever received is kept for reset.
 */
export class FeedbackInbox {
  readonly received: ReceivedFeedback[] = [];
  private readonly buffer: unknown[] = [];
  private readonly waiters: ((payload: unknown) => void)[] = [];

  deliver(payload: unknown, eventId: number): void {
    this.received.push({ payload, eventId });
    const waiter = this.waiters.shift();
    if (waiter) waiter(jsonCopy(payload));
    else this.buffer.push(payload);
  }

  /** The oldest buffered reply, if any. */
  take(): { payload: unknown } | undefined {
    if (this.buffer.length === 0) return undefined;
    return { payload: jsonCopy(this.buffer.shift()) };
  }

  /** Waits for the next reply; returns the function that withdraws the wait. */
  wait(receive: (payload: unknown) => void): () => void {
    this.waiters.push(receive);
    return () => {
      const index = this.waiters.indexOf(receive);
      if (index !== -1) this.waiters.splice(index, 1);
    };
  }

  /** A replayed wait consumed the oldest reply in the original run. */
  dropOldest(): void {
    this.buffer.shift();
  }
}
