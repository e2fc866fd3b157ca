import { z } from 'zod';

/**
 * A number variable: decimal digits (a fraction, a sign), spaces around ignored; `schema` bounds it. Never empty: an
 * emptied variable is a mistake (a template's blank), which coercion would read as 0 (PORT= gave a random port).
 */
export function envNumber(schema: z.ZodNumber) {
  return z
    .string()
    .trim()
    .min(1, { message: 'is empty: leave it unset for its default', abort: true })
    .regex(/^[+-]?\d+(\.\d+)?$/, 'must be a decimal number')
    .transform(Number)
    .pipe(schema);
}
