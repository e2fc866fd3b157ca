import type { HttpApp } from '../../../adapters/http/app.js';
import { createHttpApp } from '../../../adapters/http/app.js';
import type { HttpAppOptions } from '../../../adapters/http/options.js';
import { RecordingApi, SequentialIds } from './fakeApi.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { CapturingLogger } from '../../support/logLines.js';

/** Drives the transport-neutral app in-process: no socket, so every answer is inspectable as it left the app. */

export const TOKEN = 'app-test-token-4242';
export const SUNSET = 'Thu, 16 Jul 2026 23:59:59 GMT';

export interface Harness {
  app: HttpApp;
  api: RecordingApi;
  logger: CapturingLogger;
}

export function harness(options: Partial<HttpAppOptions> = {}): Harness {
  const api = new RecordingApi();
  const logger = new CapturingLogger();
  return { app: createHttpApp({ api, logger, ids: new SequentialIds(), ...HTTP_APP_DEFAULTS, ...options }), api, logger };
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

export async function call(
  { app }: Harness,
  method: string,
  url: string,
  options: { json?: unknown; raw?: string; headers?: Record<string, string>; signal?: AbortSignal } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  let text = options.raw;
  if (options.json !== undefined) {
    text = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const body = text === undefined ? null : (async function* () {
    yield new TextEncoder().encode(text);
  })();
  const response = await app.handle({ method, url, headers, body, signal: options.signal ?? new AbortController().signal });
  let responseText = '';
  if (typeof response.body === 'string') responseText = response.body;
  else if (response.body !== null) for await (const chunk of response.body) responseText += chunk;
  const isJson = (response.headers['content-type'] ?? '').startsWith('application/json');
  return { status: response.status, headers: response.headers, text: responseText, json: isJson ? JSON.parse(responseText) : undefined };
}

export const authed = { headers: { authorization: `Bearer ${TOKEN}` } };
