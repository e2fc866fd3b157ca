import { request } from 'undici';
import type { TestApi } from './engines.js';
import { eventually } from './eventually.js';

export interface TestResponse<T = any> {
  status: number;
  headers: Record<string, string>;
  body: T;
  text: string;
}

export interface CallOptions {
  /** Sent as JSON with `Content-Type: application/json`. */
  json?: unknown;
  /** Sent as is (for malformed bodies); set the content type in `headers`. */
  raw?: string | Buffer;
  headers?: Record<string, string>;
}

/** One HTTP exchange over a real socket. The body is parsed when the response is JSON. */
export async function call<T = any>(api: Pick<TestApi, 'baseUrl'>, method: string, path: string, options: CallOptions = {}): Promise<TestResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | Buffer | undefined = options.raw;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await request(`${api.baseUrl}${path}`, { method: method as 'GET', headers, body });
  const text = await response.body.text();
  const flatHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flatHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const isJson = (flatHeaders['content-type'] ?? '').includes('json');
  return { status: response.statusCode, headers: flatHeaders, body: isJson && text ? JSON.parse(text) : text, text };
}

/** Polls the status endpoint until `predicate` holds (for runs started without waiting). */
export async function waitForStatus(
  api: Pick<TestApi, 'baseUrl'>,
  path: string,
  predicate: (status: string) => boolean,
  timeoutMs = 20_000,
): Promise<any> {
  let last: TestResponse | undefined;
  return eventually(
    () => `${path}; last answer ${last?.status} ${last?.text}`,
    async () => {
      last = await call(api, 'GET', path);
      return last.status === 200 && predicate(last.body.status) ? last.body : undefined;
    },
    { timeoutMs, intervalMs: 25 },
  );
}

/** Polls history until an event of `type` appears (e.g. a run reaching its webhook wait). */
export async function waitForEvent(api: Pick<TestApi, 'baseUrl'>, workflowId: string, type: string, timeoutMs = 20_000): Promise<void> {
  await eventually(
    `${type} in ${workflowId}`,
    async () => {
      const response = await call(api, 'GET', `/workflow/${encodeURIComponent(workflowId)}/history?pageSize=200`);
      return response.status === 200 && response.body.events.some((event: { type: string }) => event.type === type);
    },
    { timeoutMs, intervalMs: 25 },
  );
}

export const uniqueId = (prefix: string): string => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;
