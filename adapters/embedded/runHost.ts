import type { Clock } from '../../ports/clock.js';
import type { Logger } from '../../ports/logger.js';
import type { Tracing } from '../../ports/tracing.js';
import type { RunClosing } from './closings.js';
import type { CommandRecord } from './commandLog.js';
import type { CommandServices } from './runCommands.js';
import type { RunRecord } from './runRecord.js';
import type { TimerRegistry } from './timers.js';

/** What a run's execution needs from the engine around it (runLifecycle.ts). */
export interface RunHost {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly timers: TimerRegistry;
  readonly tracing: Tracing;
  /** What the run's commands are offered (runCommands.ts). */
  readonly services: CommandServices;
  /** One of the run's commands was called, progressed or completed: the store writes it at its next commit. */
  commandChanged(record: RunRecord, command: CommandRecord): void;
  /** The store's commit of the run's changes so far; undefined when there is nothing to wait for (EngineStore.commit). */
  commit(record: RunRecord): Promise<void> | undefined;
  /** Closes a run (once; later calls for the same run are ignored). */
  close(run: RunRecord, closing: RunClosing): Promise<void>;
}
