import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context } from '@temporalio/activity';
import { addProgressSink, appendBounded, type ProgressRecord } from '../../../core/definition/progress.js';
import { progressRecordsOf, type ProgressHeartbeat } from '../protocol.js';

/**
 * How often the SDK sends a step's heartbeat (progress) at most. Without a heartbeat timeout the SDK's default is
 * 30 s, far too coarse for progress; calls in between are coalesced: the latest details win, which is why every
 * heartbeat carries the step's latest records, not just the newest.
 */
export const PROGRESS_HEARTBEAT_INTERVAL = '1 second';

/**
 * A worker's `progress(fields)` sink: inside one of its step attempts, progress becomes a heartbeat of the attempt's
 * activity (docs/progress.md). Installed while the worker runs; `close` removes it.
 */
export class HeartbeatProgress {
  private readonly attempts = new AsyncLocalStorage<AttemptProgress>();
  private readonly removeSink = addProgressSink({
    publish: (fields) => {
      const attempt = this.attempts.getStore();
      attempt?.publish(fields);
      return attempt !== undefined;
    },
  });

  /** Runs one step attempt with its progress going to `context`'s heartbeats. */
  run<T>(context: Context, attempt: () => Promise<T>): Promise<T> {
    return this.attempts.run(new AttemptProgress(context), attempt);
  }

  close(): void {
    this.removeSink();
  }
}

/**
 * One attempt's records. They go on from the previous attempt's last heartbeat (Temporal hands it to the next
 * attempt), so `seq` keeps increasing across retries.
 */
class AttemptProgress {
  private records: ProgressRecord[];
  private seq: number;

  constructor(private readonly context: Context) {
    this.records = progressRecordsOf(context.info.heartbeatDetails);
    this.seq = this.records.at(-1)?.seq ?? 0;
  }

  publish(fields: Record<string, unknown>): void {
    this.seq += 1;
    this.records = appendBounded(this.records, { seq: this.seq, attempt: this.context.info.attempt, time: new Date().toISOString(), fields });
    const details: ProgressHeartbeat = { flowgateProgress: this.records };
    this.context.heartbeat(details);
  }
}
