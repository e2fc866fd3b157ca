import type { z } from 'zod';
import { ValidationError, type ValidationIssue } from '../../core/domain/errors.js';

export type RequestPart = 'path' | 'query' | 'body' | 'header';

const PART_MESSAGES: Record<RequestPart, string> = {
  path: 'Invalid path parameter',
  query: 'Invalid query parameter',
  body: 'Invalid request body',
  header: 'Invalid request header',
};

/** Parses a request part; a failure becomes a ValidationError carrying zod's issues (paths relative to the part). */
export function parseRequestPart<S extends z.ZodType>(schema: S, value: unknown, part: RequestPart): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => toValidationIssue(part === 'query' && isRepeated(value, issue.path[0]) ? { ...issue, message: REPEATED_PARAMETER } : issue));
  const first = issues[0];
  const where = first && first.path.length > 0 ? ` ${first.path.join('.')}` : '';
  throw new ValidationError(`${PART_MESSAGES[part]}${where}: ${first?.message ?? 'invalid'}`, { issues });
}

/** What a parameter given twice is told, whatever its schema would have said of the list it became (requestTarget.ts). */
const REPEATED_PARAMETER = 'given more than once; a query parameter may appear once';

function isRepeated(query: unknown, name: PropertyKey | undefined): boolean {
  return typeof name === 'string' && typeof query === 'object' && query !== null && Array.isArray((query as Record<string, unknown>)[name]);
}

export function toValidationIssue(issue: z.core.$ZodIssue): ValidationIssue {
  // `input` is left out: it would echo request data (possibly secrets) back and into logs.
  const { input: _input, path, ...rest } = issue as z.core.$ZodIssue & { input?: unknown };
  return { ...rest, path: path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment)) };
}

/** A ValidationError for one problem found outside a schema (headers, encodings). */
export function validationProblem(message: string, code: string, path: (string | number)[]): InstanceType<typeof ValidationError> {
  return new ValidationError(message, { issues: [{ code, path, message }] });
}
