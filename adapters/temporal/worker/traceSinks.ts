import type { InjectedSinks } from '@temporalio/worker';
import type { Logger } from '../../../ports/logger.js';
import { TRACE_SINK } from '../protocol.js';
import type { FlowgateSinks } from '../sandbox/traceSink.js';
import type { TraceCollector } from './traceCollector.js';

/**
 * The worker end of the trace sink. Not called during replay; a workflow-task retry may call it again, which the
 * collector ignores. The SDK awaits it before it completes the activation, so a run's trace is written before the
 * server sees the run close.
 */
export function traceSinks(traces: TraceCollector, logger: Logger): InjectedSinks<FlowgateSinks> {
  return {
    [TRACE_SINK]: {
      runClosed: {
        fn: async (_info, message) => {
          try {
            await traces.runClosed(message);
          } catch (error) {
            logger.error('trace recording failed', {
              workflowId: message.workflowId,
              runId: message.runId,
              error: error instanceof Error ? error.message : String(error),
            });
          }
        },
        callDuringReplay: false,
      },
    },
  };
}
