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

const attempts = new AsyncLocalStorage<HeartbeatProgress>();
let sinkInstalled = false;

/**
 * Runs one step attempt so that its `progress(fields)` calls become heartbeats of its activity. The records go on
 * from the previous attempt's last heartbeat, so `seq` keeps increasing across retries.
 */
export function withHeartbeatProgress<T>(context: Context, attempt: () => Promise<T>): Promise<T> {
  // One sink per process, for its lifetime: it serves whichever worker's step attempt is running.
  if (!sinkInstalled) {
    sinkInstalled = true;
    addProgressSink({
      publish: (fields) => {
        const progress = attempts.getStore();
        progress?.publish(fields);
        return progress !== undefined;
      },
    });
  }
  return attempts.run(new HeartbeatProgress(context), attempt);
}

class HeartbeatProgress {
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
