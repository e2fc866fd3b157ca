/*
 * Compiled, never run (tests/unit/definitionTypes.test.ts; uvu imports it with the unit suite, so nothing happens at
 * import): a workflow's feedbackSchema types what ctx.waitForWebhook() returns. Each `@ts-expect-error` fails the
 * compile if the line it marks compiles.
 */
import { z } from 'zod';
import { workflow, type WorkflowDefinition } from '../../../core/definition/index.js';
import type { WorkflowList } from '../../../adapters/client/index.js';

/** True exactly when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>): Equal<A, B> => proof;

type Approval = { approved: boolean; note: string };

export function typedDefinitions(): WorkflowDefinition<any, any>[] {
  const approval = workflow({
    name: 'approval',
    description: 'Waits for a typed reply',
    inputSchema: z.object({ request: z.string() }),
    outputSchema: z.object({ approved: z.boolean() }),
    feedbackSchema: z.object({ approved: z.boolean(), note: z.string().default('') }),
    fn: async ({ request }, ctx) => {
      // The schema's output side: the default applied, so `note` is there.
      const reply = await ctx.waitForWebhook({ payload: { request }, timeoutMs: 60_000 });
      same<typeof reply, Approval>(true);
      // @ts-expect-error the reply is typed by the schema, not cast by a type argument
      await ctx.waitForWebhook<{ other: number }>();
      // @ts-expect-error no such field in the reply
      void reply.comment;
      return { approved: reply.approved };
    },
  });
  // The definition carries the reply type.
  same<typeof approval extends WorkflowDefinition<any, any, any, infer F> ? F : never, Approval>(true);

  // Without a feedbackSchema the reply is `unknown`, or what a type argument says (unchecked, as before).
  const untyped = workflow({
    name: 'untyped',
    description: 'Waits for any reply',
    inputSchema: z.object({}),
    outputSchema: z.unknown(),
    fn: async (_input, ctx) => {
      const reply = await ctx.waitForWebhook();
      same<typeof reply, unknown>(true);
      const cast = await ctx.waitForWebhook<{ n: number }>();
      same<typeof cast, { n: number }>(true);
      return reply;
    },
  });

  // @ts-expect-error a feedbackSchema is a zod schema
  workflow({ name: 'bad', description: '', inputSchema: z.object({}), outputSchema: z.unknown(), feedbackSchema: { type: 'object' }, fn: async () => null });

  // The client's view of GET /workflow/list has the published JSON Schema, optional like the field.
  same<WorkflowList['workflows'][number]['feedbackSchema'], Record<string, unknown> | boolean | undefined>(true);

  // A typed definition is still a WorkflowDefinition like any other (what a worker or the testing kit is given).
  return [approval, untyped];
}
