import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'undici';
import { startTestApi, type TestApi } from './engines.js';
import { call as rawCall, waitForStatus, type CallOptions, type TestResponse } from './http.js';
import { assertMatchesDocumentedSchema, assertSseEventMatchesSchema } from './contractSchemas.js';

/*
 * Helpers for the HTTP contract suites (tests/contract). Everything goes through HTTP on a real socket, so the
 * same suites run against every engine.
 */

export interface ContractContext {
  api: TestApi;
  /** Why the server did not start (reported by every test of the suite). */
  startError?: unknown;
}

/**
 * A uvu suite whose `before` starts a fresh API (with `env` added) and whose `after` always closes it, even when
 * tests failed. uvu reports a throwing `before` hook only as "0 / N", so a start failure is kept and thrown by
 * every test instead, with its message.
 */
export function contractSuite(name: string, env: Record<string, string> = {}, options: Parameters<typeof startTestApi>[1] = {}): Test<ContractContext> {
  const test = suite<ContractContext>(name, {} as ContractContext);
  test.before(async (context) => {
    try {
      context.api = await startTestApi(env, options);
    } catch (error) {
      context.startError = error;
    }
  });
  test.before.each((context) => {
    if (context.startError !== undefined) {
      const reason = context.startError instanceof Error ? context.startError.message : String(context.startError);
      throw new Error(`the API did not start with ${JSON.stringify(env)}: ${reason}`);
    }
  });
  test.after(async (context) => {
    await context.api?.close();
  });
  return test;
}

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

export const RESULT_V2_KEYS = ['error', 'input', 'output', 'runId', 'status', 'trace', 'v', 'workflowId'];
export const RESULT_LEGACY_KEYS = ['error', 'errorDetails', 'input', 'output', 'runId', 'status', 'trace', 'workflowId'];
export const LEGACY_ERROR_DETAILS_KEYS = ['activityId', 'cause', 'message', 'name', 'retryable'];
export const STATUS_VIEW_KEYS = ['catalog', 'closedAt', 'runId', 'startedAt', 'status', 'workflowId', 'workflowName'];

/** `encodeURIComponent` for path segments (an id with `/` stays one segment). */
export const enc = (value: string): string => encodeURIComponent(value);

/** `/workflow/{id}` or `/workflow/{id}/runs/{rid}`, encoded. */
export const wf = (workflowId: string, runId?: string): string =>
  runId === undefined ? `/workflow/${enc(workflowId)}` : `/workflow/${enc(workflowId)}/runs/${enc(runId)}`;

export const keys = (value: unknown): string[] => Object.keys(value as object).sort();

/**
 * One HTTP exchange that also checks what every response must satisfy: an `X-Request-Id` header, and a JSON body
 * that matches the schema the route table documents for that route and status.
 */
export async function http<T = any>(api: Pick<TestApi, 'baseUrl'>, method: string, path: string, options: CallOptions = {}): Promise<TestResponse<T>> {
  const response = await rawCall<T>(api, method, path, options);
  assert.ok(response.headers['x-request-id'], `${method} ${path} -> ${response.status} has no X-Request-Id`);
  assertMatchesDocumentedSchema(method, path, response);
  return response;
}

function describe(response: TestResponse): string {
  return `${response.status} ${response.text.slice(0, 600)}`;
}

export function expectStatus(response: TestResponse, status: number, what = ''): void {
  assert.is(response.status, status, `${what ? `${what}: ` : ''}expected ${status}, got ${describe(response)}`);
}

export interface ExpectedError {
  /**
   * The `workflowId` the body must carry (tied to an execution). `null`: the body must not have one.
   * Left undefined: the body may carry none, or this exact `maybeWorkflowId`.
   */
  workflowId?: string | null;
  maybeWorkflowId?: string;
  /** The run a 408 of POST /workflow/run names (issue 9): the body's `runId`. */
  runId?: string;
}

/**
 * An error answer: the status, `error` name, a non-empty message and EXACTLY the keys docs/api.md allows:
 * `{error, message}`, plus `workflowId` when tied to an execution, plus `issues` for ValidationError, plus `runId`
 * where a run-and-wait's 408 names its run.
 */
export function expectError(response: TestResponse, status: number, errorName: string, expected: ExpectedError = {}): void {
  expectStatus(response, status, errorName);
  assert.match(response.headers['content-type'] ?? '', /application\/json/, 'error bodies are JSON');
  const body = response.body as Record<string, unknown>;
  assert.is(body.error, errorName, `error name; body ${response.text}`);
  assert.type(body.message, 'string');
  assert.ok((body.message as string).length > 0, 'message is not empty');
  const allowed = new Set(['error', 'message']);
  if (errorName === 'ValidationError') {
    allowed.add('issues');
    assert.ok(Array.isArray(body.issues), `ValidationError has an issues array: ${response.text}`);
    assert.ok((body.issues as unknown[]).length > 0, 'issues is not empty');
    for (const issue of body.issues as Record<string, unknown>[]) {
      assert.type(issue.message, 'string', 'each issue has a message');
      assert.ok(Array.isArray(issue.path), 'each issue has a path');
    }
  }
  if (typeof expected.workflowId === 'string') {
    allowed.add('workflowId');
    assert.is(body.workflowId, expected.workflowId, `workflowId of the error body: ${response.text}`);
  } else if (expected.workflowId === undefined && expected.maybeWorkflowId !== undefined && 'workflowId' in body) {
    allowed.add('workflowId');
    assert.is(body.workflowId, expected.maybeWorkflowId, `workflowId of the error body: ${response.text}`);
  }
  if (expected.runId !== undefined) {
    allowed.add('runId');
    assert.is(body.runId, expected.runId, `runId of the error body: ${response.text}`);
  }
  for (const key of Object.keys(body)) assert.ok(allowed.has(key), `unexpected key "${key}" in error body ${response.text}`);
  assert.not.match(response.text, /\n\s+at .+\(.+:\d+:\d+\)/, 'no stack trace in an error body');
}

/** The issues of a ValidationError mention `field` somewhere in a path. */
export function expectIssueAt(response: TestResponse, field: string | number): void {
  const issues = (response.body?.issues ?? []) as { path: (string | number)[]; keys?: string[] }[];
  const found = issues.some((issue) => issue.path.includes(field) || (issue.keys ?? []).includes(String(field)));
  assert.ok(found, `an issue names "${field}": ${response.text}`);
}

export interface Started {
  workflowId: string;
  runId: string;
}

/** POST /workflow, expecting 200. */
export async function start(api: TestApi, workflowName: string, input: unknown, workflowId?: string, extra: Record<string, unknown> = {}): Promise<Started> {
  const response = await http(api, 'POST', '/workflow', { json: { workflowName, input, ...(workflowId ? { workflowId } : {}), ...extra } });
  expectStatus(response, 200, `start ${workflowName}`);
  return { workflowId: response.body.workflowId, runId: response.body.runId };
}

/** POST /workflow/run, expecting 200; returns the result body. */
export async function runAndWait(api: TestApi, body: Record<string, unknown>, query = ''): Promise<any> {
  const response = await http(api, 'POST', `/workflow/run${query}`, { json: body });
  expectStatus(response, 200, `run ${String(body.workflowName)}`);
  return response.body;
}

export async function statusOf(api: TestApi, workflowId: string, runId?: string): Promise<TestResponse> {
  return http(api, 'GET', `${wf(workflowId, runId)}/status`);
}

/** Waits until the (pinned) run reaches `status`. */
export async function waitUntil(api: TestApi, workflowId: string, status: string, runId?: string): Promise<any> {
  return waitForStatus(api, `${wf(workflowId, runId)}/status`, (current) => current === status);
}

/** All events of a (pinned) run's history, through the JSON form. */
export async function historyEvents(api: TestApi, workflowId: string, runId?: string): Promise<any[]> {
  const events: any[] = [];
  let pageToken: string | null = null;
  do {
    const query: string = `?pageSize=200${pageToken ? `&pageToken=${enc(pageToken)}` : ''}`;
    const response: TestResponse = await http(api, 'GET', `${wf(workflowId, runId)}/history${query}`);
    expectStatus(response, 200, 'history');
    events.push(...response.body.events);
    pageToken = response.body.nextPageToken;
  } while (pageToken);
  return events;
}

/** Every run the run list returns for `query` (all pages). */
export async function listAllRuns(api: TestApi, query: Record<string, string>): Promise<any[]> {
  const runs: any[] = [];
  let pageToken: string | null = null;
  do {
    const params: URLSearchParams = new URLSearchParams({ ...query, limit: '1000', ...(pageToken ? { pageToken } : {}) });
    const response: TestResponse = await http(api, 'GET', `/workflow/runs?${params}`);
    expectStatus(response, 200, 'run list');
    runs.push(...response.body.runs);
    pageToken = response.body.nextPageToken;
  } while (pageToken);
  return runs;
}

/** The runs of one workflow id, as the run list shows them (filtered by workflow name). */
export async function runsOfId(api: TestApi, workflowName: string, workflowId: string): Promise<any[]> {
  return (await listAllRuns(api, { workflowName })).filter((run) => run.workflowId === workflowId);
}

/** Proof that nothing started under `workflowId`: its status is 404 and no run of `workflowName` has that id. */
export async function expectNothingStarted(api: TestApi, workflowId: string, workflowName: string): Promise<void> {
  const status = await statusOf(api, workflowId);
  expectError(status, 404, 'WorkflowNotFoundError', { maybeWorkflowId: workflowId });
  assert.equal(await runsOfId(api, workflowName, workflowId), [], `no run of ${workflowName} has id ${workflowId}`);
}

/** A snapshot of what a request must not change: the latest run, its status and its history length. */
export async function snapshot(api: TestApi, workflowId: string): Promise<{ runId: string; status: string; events: number }> {
  const status = await statusOf(api, workflowId);
  expectStatus(status, 200, 'status for a snapshot');
  const events = await historyEvents(api, workflowId, status.body.runId);
  return { runId: status.body.runId, status: status.body.status, events: events.length };
}

// ---- Server-sent events ----------------------------------------------------------------------------------------

export interface SseEvent {
  event: string;
  id?: string;
  data: any;
}

export interface EventStream {
  status: number;
  headers: Record<string, string>;
  /** The next event, or `null` once the server ended the response. Fails after `timeoutMs`. */
  next(timeoutMs?: number): Promise<SseEvent | null>;
  /** Reads events until the response ends. */
  rest(timeoutMs?: number): Promise<SseEvent[]>;
  close(): void;
}

/** Opens a server-sent event stream over a real socket and parses it frame by frame. */
export async function openEventStream(api: Pick<TestApi, 'baseUrl'>, path: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const controller = new AbortController();
  const response = await request(`${api.baseUrl}${path}`, {
    method: 'GET',
    headers: { accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  });
  const flatHeaders: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (value !== undefined) flatHeaders[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  const iterator = (response.body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  const queue: SseEvent[] = [];

  const parseFrames = (): void => {
    buffer = buffer.replace(/\r\n?/g, '\n');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let event = 'message';
      let id: string | undefined;
      const data: string[] = [];
      for (const line of frame.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = value;
        else if (field === 'id') id = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length === 0) continue; // a comment-only frame (keep-alive)
      const text = data.join('\n');
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // keep the raw text; the test will say what it expected
      }
      assertSseEventMatchesSchema(event, parsed);
      queue.push({ event, ...(id === undefined ? {} : { id }), data: parsed });
    }
  };

  const next = async (timeoutMs = 10_000): Promise<SseEvent | null> => {
    const deadline = Date.now() + timeoutMs;
    while (queue.length === 0 && !ended) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), Math.max(1, deadline - Date.now()));
      });
      const chunk = await Promise.race([iterator.next(), timeout]);
      clearTimeout(timer);
      if (chunk === 'timeout') throw new Error(`no server-sent event within ${timeoutMs} ms on ${path}`);
      if (chunk.done) {
        ended = true;
        buffer += decoder.decode();
        buffer += '\n\n';
      } else {
        buffer += decoder.decode(chunk.value, { stream: true });
      }
      parseFrames();
    }
    return queue.shift() ?? null;
  };

  return {
    status: response.statusCode,
    headers: flatHeaders,
    next,
    async rest(timeoutMs = 10_000) {
      const events: SseEvent[] = [];
      for (let event = await next(timeoutMs); event; event = await next(timeoutMs)) events.push(event);
      return events;
    },
    close() {
      controller.abort();
      response.body.destroy();
    },
  };
}
