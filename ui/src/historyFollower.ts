import type { RunStatusView } from '../../core/api/views.js';
import type { HistoryEvent } from '../../core/domain/history.js';
import type { ProgressEvent } from '../../core/domain/progress.js';
import type { RunStatus } from '../../core/domain/status.js';
import { ApiError, runPath, type Api } from './api.js';
import { SseParser, type SseEvent } from './sse.js';

export type ConnectionState = 'connecting' | 'live' | 'reconnecting' | 'ended' | 'failed';

export interface HistoryHandlers {
  workflow(view: RunStatusView): void;
  history(event: HistoryEvent): void;
  progress(event: ProgressEvent): void;
  done(status: RunStatus): void;
  connection(state: ConnectionState, detail?: string): void;
}

const FIRST_RETRY_MS = 500;
const LONGEST_RETRY_MS = 5_000;

/**
 * Follows a run's history stream (server-sent events over fetch, which can carry the bearer token) until its
 * `done` event. A dropped connection is resumed with `Last-Event-ID` (the last id received), so no history event is
 * repeated or skipped; progress a resumed stream repeats is dropped by `(stepEventId, seq)`. Resumed after the run's
 * closing event, the API answers 204 and the run's status ends the stream.
 */
export function followHistory(api: Api, workflowId: string, runId: string, handlers: HistoryHandlers): { stop(): void } {
  const controller = new AbortController();
  let lastId: string | undefined;
  let lastEventId = 0;
  const seenProgress = new Set<string>();

  const handle = (event: SseEvent): boolean => {
    switch (event.event) {
      case 'workflow':
        handlers.workflow(JSON.parse(event.data) as RunStatusView);
        return false;
      case 'history': {
        const history = JSON.parse(event.data) as HistoryEvent;
        if (event.id !== undefined) lastId = event.id;
        if (history.eventId > lastEventId) {
          lastEventId = history.eventId;
          handlers.history(history);
        }
        return false;
      }
      case 'progress': {
        const progress = JSON.parse(event.data) as ProgressEvent;
        if (event.id !== undefined) lastId = event.id;
        const key = `${progress.stepEventId}.${progress.seq}`;
        if (!seenProgress.has(key)) {
          seenProgress.add(key);
          handlers.progress(progress);
        }
        return false;
      }
      case 'done':
        handlers.done((JSON.parse(event.data) as { status: RunStatus }).status);
        return true;
      case 'error': {
        // The stream failed after it started (the engine went away): the response ends, and we resume.
        const failure = JSON.parse(event.data) as { error?: string; message?: string };
        handlers.connection('reconnecting', `${failure.error ?? 'Error'}: ${failure.message ?? ''}`);
        return false;
      }
      default:
        return false;
    }
  };

  const run = async () => {
    let retryMs = FIRST_RETRY_MS;
    handlers.connection('connecting');
    while (!controller.signal.aborted) {
      try {
        const response = await api.stream(`${runPath(workflowId, runId)}/history`, lastId, controller.signal);
        if (response.status === 204) {
          // Resumed after the closing event: the run has ended and every event is here; its status ends the stream.
          const view = await api.get<RunStatusView>(`${runPath(workflowId, runId)}/status`, {}, controller.signal);
          handlers.done(view.status);
          handlers.connection('ended');
          return;
        }
        handlers.connection('live');
        const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
        const parser = new SseParser();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          retryMs = FIRST_RETRY_MS;
          for (const event of parser.push(value)) {
            if (handle(event)) {
              handlers.connection('ended');
              await reader.cancel().catch(() => {});
              return;
            }
          }
        }
      } catch (error) {
        if (controller.signal.aborted) return;
        if (error instanceof ApiError && isFinal(error)) {
          handlers.connection('failed', error.describe());
          return;
        }
      }
      if (controller.signal.aborted) return;
      handlers.connection('reconnecting');
      await sleep(retryMs, controller.signal);
      retryMs = Math.min(retryMs * 2, LONGEST_RETRY_MS);
    }
  };
  void run();
  return { stop: () => controller.abort() };
}

/** A 4xx other than a time-out or a throttle will not change by trying again (unknown run, refused token). */
function isFinal(error: ApiError): boolean {
  return error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    }, { once: true });
  });
}
