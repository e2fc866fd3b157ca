import type { InjectedSinks } from '@temporalio/worker';
import type { Logger } from '../../../ports/logger.js';
import { silentRunObserver, type ObservedRunEnd, type RunObserver } from '../../../ports/runObserver.js';
import { RUN_SINK } from '../protocol.js';
import type { FlowgateSinks, RunClosedMessage } from '../sandbox/runSink.js';
import { workflowDetailsOf } from '../workflowDetails.js';
import type { TraceCollector } from './traceCollector.js';

/** Run ids whose start or end the hooks were told, so a sink call repeated by a workflow-task retry is told once. */
const MAX_REMEMBERED_RUNS = 10_000;

export interface RunSinkOptions {
  traces: TraceCollector;
  /** The worker's hooks. @default silentRunObserver */
  observer?: RunObserver;
  logger: Logger;
}

/**
 * The worker end of the run sink: the run's start reaches the hooks; its close writes the trace, then reaches the
 * hooks. Not called during replay. The SDK awaits these before it completes the activation, so a run's trace is
 * written before the server sees the run close, and onWorkflowStart fires before the run's first step is scheduled.
 */
export function runSinks(options: RunSinkOptions): InjectedSinks<FlowgateSinks> {
  const observer = options.observer ?? silentRunObserver;
  const told = { started: new Set<string>(), ended: new Set<string>() };
  return {
    [RUN_SINK]: {
      runStarted: {
        fn: (info) => {
          if (observer !== silentRunObserver && once(told.started, info.runId)) observer.runStarted(workflowDetailsOf(info));
        },
        callDuringReplay: false,
      },
      runClosed: {
        fn: async (info, message) => {
          try {
            await options.traces.runClosed(message);
          } catch (error) {
            options.logger.error('trace recording failed', {
              workflowId: message.workflowId,
              runId: message.runId,
              error: error instanceof Error ? error.message : String(error),
            });
          }
          if (observer !== silentRunObserver && once(told.ended, info.runId)) observer.runEnded(workflowDetailsOf(info), observedEnd(message));
        },
        callDuringReplay: false,
      },
    },
  };
}

function observedEnd(message: RunClosedMessage): ObservedRunEnd {
  if (message.status === 'completed' || message.status === 'continued_as_new') return { status: message.status };
  return { status: message.status, error: message.failure ?? { name: 'Error', message: `the run ${message.status}` } };
}

function once(seen: Set<string>, runId: string): boolean {
  if (seen.has(runId)) return false;
  seen.add(runId);
  if (seen.size > MAX_REMEMBERED_RUNS) seen.delete(seen.values().next().value!);
  return true;
}
