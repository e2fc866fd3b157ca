import * as assert from 'uvu/assert';
import type { ZodType } from 'zod';
import { httpSchemas } from '../../adapters/http/index.js';
import { createRoutes } from '../../adapters/http/routes.js';
import type { Route } from '../../adapters/http/route.js';
import type { TestResponse } from './http.js';

/*
 * Checks response bodies against the schema the route table (adapters/http/routes.ts) documents, i.e. what
 * GET /openapi.json publishes, for that route and status. Statuses a route does not list itself are the
 * transport-level ones the document generator adds: 400 (validation or error body) and any other error status
 * (error body). Paths with no route (404 NotFoundError) get the error body schema.
 */

const ROUTES: readonly Route[] = createRoutes({ runTimeoutMaxSeconds: 3600, defaultRunTimeoutSeconds: 30 });

interface Template {
  route: Route;
  segments: string[];
}

const TEMPLATES: Template[] = ROUTES.map((route) => ({ route, segments: route.path.split('/').slice(1) }));

function segmentsOf(path: string): string[] | undefined {
  const bare = path.split('?')[0]!;
  try {
    return bare
      .split('/')
      .slice(1)
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}

/** The route a concrete request path and method reach: static segments beat parameters (so `list` is not an id). */
export function routeFor(method: string, path: string): Route | undefined {
  const segments = segmentsOf(path);
  if (!segments) return undefined;
  let best: { route: Route; score: number } | undefined;
  for (const { route, segments: template } of TEMPLATES) {
    if (route.method !== method.toUpperCase() || template.length !== segments.length) continue;
    let score = 0;
    let matches = true;
    for (let index = 0; index < template.length; index++) {
      const part = template[index]!;
      if (/^\{.+\}$/.test(part)) continue;
      if (part !== segments[index]) {
        matches = false;
        break;
      }
      // Earlier static segments weigh more: /workflow/list/status is the status of a workflow called "list".
      score += 2 ** (template.length - index);
    }
    if (matches && (!best || score > best.score)) best = { route, score };
  }
  return best?.route;
}

/** The schema documented for this route and status, or undefined when the response is not JSON by contract. */
export function documentedSchema(method: string, path: string, status: number): ZodType | undefined {
  const route = routeFor(method, path);
  const documented = route?.responses[status];
  if (documented) return documented.schema;
  if (status === 400) return httpSchemas.BadRequestBodySchema;
  if (status >= 400) return httpSchemas.ErrorBodySchema;
  return undefined;
}

/**
 * Fails when a JSON response does not match its documented schema, or when a status the route does not document
 * at all comes back with a 2xx. A ValidationError body is always checked against the validation error schema.
 */
export function assertMatchesDocumentedSchema(method: string, path: string, response: TestResponse): void {
  const contentType = response.headers['content-type'] ?? '';
  if (!contentType.includes('json')) return;
  const route = routeFor(method, path);
  if (route && response.status < 300) {
    assert.ok(route.responses[response.status], `${method} ${route.path}: status ${response.status} is not documented`);
  }
  let schema = documentedSchema(method, path, response.status);
  if (response.body?.error === 'ValidationError') schema = httpSchemas.ValidationErrorBodySchema;
  if (!schema) return;
  const outcome = schema.safeParse(response.body);
  if (!outcome.success) {
    assert.unreachable(
      `${method} ${path} -> ${response.status}: body does not match the documented schema` +
        ` (${route ? route.path : 'no route'}): ${outcome.error.message}\nbody: ${response.text.slice(0, 800)}`,
    );
  }
}

/** The history stream's events as the route table documents them (the event-stream schema of /openapi.json). */
const SSE_SCHEMAS: Record<string, ZodType> = Object.fromEntries(
  Object.entries(ROUTES.find((route) => route.operationId === 'getHistory')!.responses[200]!.eventStream!.events).map(([name, event]) => [name, event.data]),
);

/** Fails when a server-sent event of the history stream has an undocumented name or a body off its schema. */
export function assertSseEventMatchesSchema(event: string, data: unknown): void {
  const schema = SSE_SCHEMAS[event];
  assert.ok(schema, `undocumented server-sent event "${event}"`);
  const outcome = schema.safeParse(data);
  if (!outcome.success) assert.unreachable(`server-sent event "${event}" does not match its schema: ${outcome.error.message}`);
}
