import type { HistoryStreamItem } from '../../../core/api/views.js';
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from '../../../adapters/http/index.js';
import { MemoryLogger, RecordingApi, SequentialIds, statusView } from './fakeApi.js';
import { HTTP_APP_DEFAULTS, HTTP_SERVER_DEFAULTS } from '../../support/httpDefaults.js';

/** A real node:http server on a free loopback port in front of a recording API double. */
export interface Harness {
  server: RunningHttpServer;
  api: RecordingApi;
  logger: MemoryLogger;
}

export async function startHarness(options: Partial<HttpServerOptions> = {}): Promise<Harness> {
  const api = new RecordingApi();
  const logger = new MemoryLogger();
  const server = await startHttpServer({ api, logger, ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, ...HTTP_SERVER_DEFAULTS, ...options });
  return { server, api, logger };
}

/** A history stream that never closes by itself: the shape of a running workflow's stream. */
export function followForever(api: RecordingApi): void {
  api.overrides.historyStream = async (run, streamRequest) =>
    (async function* (): AsyncGenerator<HistoryStreamItem> {
      yield { event: 'workflow', data: statusView(run.workflowId, 'running') };
      await new Promise((resolve) => streamRequest.signal.addEventListener('abort', resolve, { once: true }));
    })();
}
