import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';
import { splitWords, summariseWords, judgeCoverage } from '../steps/text.js';

/** Two steps and an evaluator: split a text into words, keep the first few, judge the coverage. */
export default workflow({
  name: 'summarise',
  description: 'Summarises a text to its first words and scores the coverage',
  inputSchema: z.object({ text: z.string(), maxWords: z.number().int().positive().default(5) }).strict(),
  outputSchema: z.object({ summary: z.string(), wordCount: z.number().int(), coverage: z.number() }),
  fn: async ({ text, maxWords }) => {
    const words = await splitWords(text);
    const summary = await summariseWords({ words, maxWords });
    const { score } = (await judgeCoverage({ summary, wordCount: words.length })) as { score: number };
    return { summary, wordCount: words.length, coverage: score };
  },
});
