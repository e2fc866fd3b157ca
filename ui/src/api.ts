import type { TokenKeeper } from './token.js';

/** A failed call, named as the API names it: `error` and `message` are the API's own (docs/api.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    message: string,
    readonly issues: readonly { path?: readonly (string | number)[]; message?: string }[] = [],
  ) {
    super(message);
  }

  /** `WorkflowClosedError: Workflow order-42 run … is closed`, and each validation issue after it. */
  describe(): string {
    const issues = this.issues.map((issue) => `${(issue.path ?? []).join('.') || '(input)'}: ${issue.message ?? ''}`);
    return [`${this.error}: ${this.message}`, ...issues].join('\n');
  }
}

type Query = Record<string, string | number | undefined>;

/**
 * The API as the page calls it: JSON in and out, the bearer token on every call, and a 401 answered by asking for
 * the token and trying again. `base` is the API's root (everything before `/ui`), so the page works under any prefix.
 */
export class Api {
  constructor(
    readonly base: URL,
    private readonly tokens: TokenKeeper,
  ) {}

  get<T>(path: string, query: Query = {}, signal?: AbortSignal): Promise<T> {
    return this.json<T>('GET', path, { query, ...(signal ? { signal } : {}) });
  }

  post<T>(path: string, body: unknown = {}): Promise<T> {
    return this.json<T>('POST', path, { body });
  }

  patch<T>(path: string): Promise<T> {
    return this.json<T>('PATCH', path, {});
  }

  /** Opens a history stream (server-sent events), resuming after `lastEventId` when given. */
  async stream(path: string, lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
    const response = await this.send('GET', path, { headers, signal });
    if (!response.ok) throw await errorOf(response);
    return response;
  }

  private async json<T>(method: string, path: string, options: { query?: Query; body?: unknown; signal?: AbortSignal }): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    let body: string | undefined;
    if (options.body !== undefined && method !== 'GET') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    const response = await this.send(method, withQuery(path, options.query), { headers, body, signal: options.signal });
    if (!response.ok) throw await errorOf(response);
    return (await response.json()) as T;
  }

  /** One call, and again with a new token for as long as the API answers 401 and the user enters one. */
  private async send(
    method: string,
    path: string,
    init: { headers: Record<string, string>; body?: string | undefined; signal?: AbortSignal | undefined },
  ): Promise<Response> {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (;;) {
      const token = this.tokens.get();
      const headers = { ...init.headers, ...(token !== null ? { authorization: `Bearer ${token}` } : {}) };
      let response: Response;
      try {
        response = await fetch(url, { method, headers, body: init.body ?? null, signal: init.signal ?? null, cache: 'no-store', credentials: 'omit' });
      } catch (error) {
        if (init.signal?.aborted) throw error;
        throw new ApiError(0, 'NetworkError', `Could not reach the API (${error instanceof Error ? error.message : String(error)}).`);
      }
      if (response.status !== 401) return response;
      const next = await this.tokens.obtain(token);
      if (next === null) return response;
    }
  }
}

function withQuery(path: string, query: Query | undefined): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== '') params.set(name, String(value));
  }
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function errorOf(response: Response): Promise<ApiError> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; issues?: unknown };
    if (typeof body.error === 'string' && typeof body.message === 'string') {
      return new ApiError(response.status, body.error, body.message, Array.isArray(body.issues) ? body.issues : []);
    }
  } catch {
    // Not the API's JSON (a proxy's error page): say what came back.
  }
  return new ApiError(response.status, `HTTP ${response.status}`, response.statusText || 'The API answered with an unexpected response.');
}

/** `/workflow/{id}/runs/{rid}` with both ids encoded as one path segment each. */
export function runPath(workflowId: string, runId: string): string {
  return `/workflow/${encodeURIComponent(workflowId)}/runs/${encodeURIComponent(runId)}`;
}
