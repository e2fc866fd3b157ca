import { condition, defineSignal, setHandler } from '@temporalio/workflow';
import { FEEDBACK_SIGNAL } from '../protocol.js';

const feedbackSignal = defineSignal<[unknown]>(FEEDBACK_SIGNAL);

/**
 * Webhook replies of one run, oldest first. The signal handler is installed before the workflow function runs, so
 * a reply that arrives before the run waits for it (even one sent with the start) is buffered, as on the embedded engine.
 */
export class FeedbackInbox {
  private readonly replies: unknown[] = [];

  static install(): FeedbackInbox {
    const inbox = new FeedbackInbox();
    setHandler(feedbackSignal, (payload) => {
      inbox.replies.push(payload);
    });
    return inbox;
  }

  /** Whether a reply is buffered: a wait now takes it at once. */
  get hasReply(): boolean {
    return this.replies.length > 0;
  }

  /**
   * The oldest reply, waiting for one if none is buffered; `undefined` when `timeoutMs` passed first. Loops because
   * two concurrent waits wake up on the same reply and only one of them gets it.
   */
  async take(timeoutMs: number | undefined): Promise<{ payload: unknown } | undefined> {
    const deadline = timeoutMs === undefined ? undefined : Date.now() + timeoutMs;
    while (this.replies.length === 0) {
      if (deadline === undefined) {
        await condition(() => this.replies.length > 0);
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0 || !(await condition(() => this.replies.length > 0, remaining))) return undefined;
    }
    return { payload: this.replies.shift() };
  }
}
