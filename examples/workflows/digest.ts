import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';
import summarise from './summarise.js';

/** Calls another workflow as a child, once per text. */
export default workflow({
  name: 'digest',
  description: 'Summarises several texts, each in a child run of `summarise`',
  inputSchema: z.object({ texts: z.array(z.string()).min(1).max(20) }).strict(),
  outputSchema: z.object({ summaries: z.array(z.string()) }),
  fn: async ({ texts }, ctx) => {
    const summaries: string[] = [];
    for (const text of texts) {
      const { summary } = await ctx.executeChild(summarise, { text, maxWords: 3 });
      summaries.push(summary);
    }
    return { summaries };
  },
});
