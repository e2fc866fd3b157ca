import { workflow } from 'flowgate';
import { z } from 'zod';
import { countWords } from '../steps/text.js';

export const textStats = workflow({
  name: 'textTools.stats',
  description: 'Counts the words and sentences of a text',
  inputSchema: z.object({ text: z.string() }).strict(),
  outputSchema: z.object({ words: z.number().int(), sentences: z.number().int() }),
  fn: async ({ text }) => countWords({ text }),
});
