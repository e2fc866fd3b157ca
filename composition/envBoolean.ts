import { z } from 'zod';

const TRUE_SPELLINGS = new Set(['on', 'true', '1', 'yes']);
const FALSE_SPELLINGS = new Set(['off', 'false', '0', 'no']);

/**
 * A boolean environment variable, the one parser of every such variable of the API server and the worker: `on/off`,
 * `true/false`, `1/0` or `yes/no`, in any case, surrounding blanks ignored. Anything else, an empty value included, is
 * refused with the accepted spellings (the value of a boolean is no secret, so it is shown).
 */
export const envBoolean = z.string().transform((value, context) => {
  const spelling = value.trim().toLowerCase();
  if (TRUE_SPELLINGS.has(spelling)) return true;
  if (FALSE_SPELLINGS.has(spelling)) return false;
  context.addIssue({ code: 'custom', message: `must be one of on/off, true/false, 1/0, yes/no (any case), got ${JSON.stringify(value)}` });
  return z.NEVER;
});
