import type { Payload } from './payload.js';

export interface ReceivedFeedback {
  readonly payload: Payload;
  /** Its signal_received event; a reset re-delivers the replies received after its point. */
  readonly eventId: number;
}

/**
 * Webhook replies of one run: a FIFO buffer (a reply may arrive before the run waits for it) and the FIFO of
 * waits not yet served. Everything ever received is kept for reset (the same payloads its history shows).
 */
export class FeedbackInbox {
  readonly received: ReceivedFeedback[] = [];
  private readonly buffer: Payload[] = [];
  private waiters: ((payload: Payload) => void)[] = [];

  deliver(payload: Payload, eventId: number): void {
    this.received.push({ payload, eventId });
    const waiter = this.waiters.shift();
    if (waiter) waiter(payload);
    else this.buffer.push(payload);
  }

  /** The oldest buffered reply, if any. */
  take(): Payload | undefined {
    return this.buffer.shift();
  }

  /** Waits for the next reply; returns the function that withdraws the wait. */
  wait(receive: (payload: Payload) => void): () => void {
    this.waiters.push(receive);
    return () => {
      const index = this.waiters.indexOf(receive);
      if (index !== -1) this.waiters.splice(index, 1);
    };
  }

  /** Forgets the waits (the run is gone: none will be served). */
  dropWaiters(): void {
    this.waiters = [];
  }

  /** A replayed wait consumed the oldest reply in the original run. */
  dropOldest(): void {
    this.buffer.shift();
  }
}
