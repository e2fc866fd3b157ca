import { step } from 'flowgate';
import { z } from 'zod';

// Steps live in their own module: the worker swaps this module for activity calls inside Temporal's sandbox.
export const countWords = step({
  name: 'textTools.countWords',
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.object({ words: z.number().int(), sentences: z.number().int() }),
  fn: async ({ text }) => ({
    words: text.split(/\s+/).filter(Boolean).length,
    sentences: text.split(/[.!?]+/).filter((part) => part.trim().length > 0).length,
  }),
});

export const titleCase = step({
  name: 'textTools.titleCase',
  inputSchema: z.object({ text: z.string() }),
  outputSchema: z.string(),
  fn: async ({ text }) => text.replace(/\b\p{L}/gu, (letter) => letter.toUpperCase()),
});
