import type { CallbackPost, CallbackSender } from '../../ports/callbackSender.js';
import type { Metrics } from '../../ports/metrics.js';

/** The CallbackSender port with each attempt counted as delivered or failed. */
export class MeteredCallbackSender implements CallbackSender {
  constructor(
    private readonly sender: CallbackSender,
    private readonly metrics: Metrics,
  ) {}

  async deliver(post: CallbackPost): Promise<void> {
    try {
      await this.sender.deliver(post);
    } catch (error) {
      this.metrics.callbackFailed();
      throw error;
    }
    this.metrics.callbackDelivered();
  }
}
