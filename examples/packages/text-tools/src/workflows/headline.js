import { workflow } from 'flowgate';
import { z } from 'zod';
import { titleCase } from '../steps/text.js';

/** A default export works too: the package index re-exports it by name (`export { default as headline }`). */
export default workflow({
  name: 'textTools.headline',
  description: 'Turns a sentence into a title-cased headline of at most maxWords words',
  inputSchema: z.object({ text: z.string().min(1), maxWords: z.number().int().positive().default(8) }).strict(),
  outputSchema: z.object({ headline: z.string() }),
  fn: async ({ text, maxWords }) => ({ headline: await titleCase({ text: text.split(/\s+/).slice(0, maxWords).join(' ') }) }),
});
