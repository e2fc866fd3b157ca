import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { failure, success } from '../../../adapters/http/responseDocs.js';
import { defineRoute, ok, type RouteContext, type RouteResult } from '../../../adapters/http/route.js';
import { getInput } from '../../../adapters/http/handlers/runs.js';
import { RunStatusViewSchema, StartResponseSchema } from '../../../adapters/http/schemas/index.js';

/*
 * Each route's answer is typed by its response schemas (adapters/http/route.ts, AnswerOf): a handler that answers
 * another shape does not compile. `tsc -p tsconfig.json` checks every `@ts-expect-error` below: were a wrong answer
 * accepted, the directive would be unused, and that is an error of its own.
 */

const started = { workflowId: 'order-1', runId: '0198a6f0-1c2b-7def-8123-456789abcdef', status: 'running' as const };
const startRoute = (handle: () => Promise<RouteResult<{ workflowId: string; runId: string; status: 'running' }>>) =>
  defineRoute({
    method: 'POST',
    path: '/probe',
    operationId: 'probe',
    scope: 'start',
    summary: 'probe',
    tags: ['workflows'],
    responses: { 200: success(StartResponseSchema, 'Started.'), 404: failure('Not found.') },
    handle,
  });

test('a handler answering its schema\'s shape compiles and answers it', async () => {
  const route = startRoute(async () => ok(started));
  const result = await route.handle({ params: {}, query: {}, body: undefined, headers: {}, signal: new AbortController().signal }, {} as RouteContext);
  assert.equal(result, { kind: 'json', status: 200, body: started });
});

test('a handler answering another shape does not compile', () => {
  const base = { method: 'GET', path: '/probe', operationId: 'probe', summary: 'probe', tags: ['runs'] } as const;
  const routes = [
    defineRoute({
      ...base,
      responses: { 200: success(StartResponseSchema, 'Started.') },
      // @ts-expect-error `status` is missing from the answer
      handle: async () => ok({ workflowId: 'order-1', runId: started.runId }),
    }),
    defineRoute({
      ...base,
      responses: { 200: success(StartResponseSchema, 'Started.') },
      // @ts-expect-error `status` is `running`, never another word
      handle: async () => ok({ ...started, status: 'completed' }),
    }),
    defineRoute({
      ...base,
      responses: { 200: success(StartResponseSchema, 'Started.'), 404: failure('Not found.') },
      // @ts-expect-error an error body is thrown as an error, never answered as a route's result
      handle: async () => ok({ error: 'WorkflowNotFoundError', message: 'no such run' }),
    }),
    defineRoute({
      ...base,
      responses: { 200: success(StartResponseSchema, 'Started.') },
      // @ts-expect-error an answer whose body is not typed is refused: it could be anything
      handle: async (): Promise<RouteResult> => ok(started),
    }),
    defineRoute({
      ...base,
      responses: { 200: success(RunStatusViewSchema, 'The run status.') },
      // @ts-expect-error the input's handler wired to the status route
      handle: ({ params }, context) => getInput({ id: String(params) }, context),
    }),
  ];
  assert.is(routes.length, 5);
});

test.run();
