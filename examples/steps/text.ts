import { z } from 'zod';
// In your own project: import { step, evaluator } from 'flowgate';
import { step, evaluator } from '../../core/definition/index.js';

export const splitWords = step({
  name: 'split_words',
  inputSchema: z.string(),
  outputSchema: z.array(z.string()),
  fn: async (text: string) => text.split(/\s+/).filter((word) => word.length > 0),
});

export const summariseWords = step({
  name: 'summarise_words',
  inputSchema: z.object({ words: z.array(z.string()), maxWords: z.number().int().positive() }),
  fn: async ({ words, maxWords }: { words: string[]; maxWords: number }) =>
    words.length <= maxWords ? words.join(' ') : `${words.slice(0, maxWords).join(' ')}…`,
});

/** Scores how much of the text the summary keeps: an evaluator is a step whose kind is `evaluator`. */
export const judgeCoverage = evaluator({
  name: 'judge_coverage',
  fn: async ({ summary, wordCount }: { summary: string; wordCount: number }) => ({
    score: wordCount === 0 ? 1 : Math.min(1, summary.split(/\s+/).length / wordCount),
  }),
});
