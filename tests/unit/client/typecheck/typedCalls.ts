/*
 * Compiled, never run (tests/unit/client/typedCalls.test.ts): what flowgate/client's calls accept and return, typed
 * by the caller's own workflow definitions. Each `@ts-expect-error` fails the compile if the call it marks compiles.
 */
import { z } from 'zod';
import { workflow } from '../../../../core/definition/index.js';
import { workflowRef, type FlowgateClient, type FollowEvent, type WorkflowResultLegacy } from '../../../../adapters/client/index.js';

const summarise = workflow({
  name: 'summarise',
  description: 'Summarises a text',
  inputSchema: z.object({ text: z.string(), maxWords: z.number().int().default(50) }),
  outputSchema: z.object({ summary: z.string(), words: z.number() }),
  fn: async ({ text, maxWords }) => ({ summary: text.split(' ').slice(0, maxWords).join(' '), words: maxWords }),
});

/** True exactly when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(proof: Equal<A, B>): Equal<A, B> => proof;

export async function typedCalls(client: FlowgateClient): Promise<void> {
  // The input schema's input side: `maxWords` has a default, so a caller may leave it out.
  const result = await client.run(summarise, { text: 'a long text' });
  if (result.status === 'completed') same<typeof result.output, { summary: string; words: number }>(true);
  else same<typeof result.output, null>(true);

  // @ts-expect-error `text` is required
  await client.run(summarise, { maxWords: 3 });
  // @ts-expect-error `text` is a string
  await client.run(summarise, { text: 42 });
  // @ts-expect-error `maxWords` is a number
  await client.run(summarise, { text: 'x', maxWords: 'three' });
  // @ts-expect-error a start is checked the same way
  await client.start(summarise, { words: 'x' });

  // A type-only reference: no workflow code is imported at run time.
  const byRef = await client.run(workflowRef<typeof summarise>('summarise'), { text: 'x' });
  if (byRef.status === 'completed') same<typeof byRef.output, { summary: string; words: number }>(true);
  // @ts-expect-error the reference carries the input type too
  await client.run(workflowRef<typeof summarise>('summarise'), { text: 1 });

  // By name: anything goes in, `unknown` comes out.
  const byName = await client.run('summarise', { anything: true });
  if (byName.status === 'completed') same<typeof byName.output, unknown>(true);

  // The server's own shapes: a wrong field of a request is refused, answers are typed.
  // @ts-expect-error `timeout` is the client's business (timeoutMs, pollSeconds), not a run option
  await client.run(summarise, { text: 'x' }, { timeout: 5 });
  // @ts-expect-error `dryRun` is a boolean
  await client.cancelRuns({ workflowName: 'summarise', dryRun: 'yes' });
  const legacy = await client.result('id', { v: 'legacy' });
  same<typeof legacy, WorkflowResultLegacy>(true);
  const status = await client.status('id');
  same<typeof status.status, 'running' | 'completed' | 'failed' | 'cancelled' | 'terminated' | 'timed_out' | 'continued_as_new'>(true);
  for await (const event of client.follow('id')) {
    if (event.event === 'history') same<typeof event.data.eventId, number>(true);
    same<typeof event, FollowEvent>(true);
  }
}
