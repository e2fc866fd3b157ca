import { ValidationError } from './errors.js';
import { fitsCharacters, hasUnpairedSurrogate } from './text.js';

export const MAX_WORKFLOW_ID_LENGTH = 1000;
/** Catalog names (= task queues): 1 to this many characters, well-formed Unicode (docs/api.md, Conventions). */
export const MAX_CATALOG_NAME_LENGTH = 1000;
// C0 controls, DEL and C1 controls, as the body of a character class.
const CONTROL_CHARACTERS = '\\u0000-\\u001f\\u007f-\\u009f';
const CONTROL_CHARACTER = new RegExp(`[${CONTROL_CHARACTERS}]`);
/** The control-character rule as a JSON Schema (ECMA-262) pattern, for the API description. */
export const WORKFLOW_ID_PATTERN = `^[^${CONTROL_CHARACTERS}]*$`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * docs/api.md, Conventions: 1 to 1000 characters (code points, as the API description's maxLength counts them), no control
 * characters; and well-formed Unicode, which no engine could store otherwise. Returns a reason when invalid.
 */
export function workflowIdProblem(value: string): string | undefined {
  if (value.length === 0) return 'workflowId must not be empty';
  if (!fitsCharacters(value, MAX_WORKFLOW_ID_LENGTH)) return `workflowId must be at most ${MAX_WORKFLOW_ID_LENGTH} characters`;
  if (CONTROL_CHARACTER.test(value)) return 'workflowId must not contain control characters';
  if (hasUnpairedSurrogate(value)) return 'workflowId must be well-formed Unicode (no unpaired surrogate)';
  return undefined;
}

/** Both engines use UUID run ids (Temporal's format). */
export function runIdProblem(value: string): string | undefined {
  return UUID.test(value) ? undefined : 'runId must be a UUID';
}

export function assertWorkflowId(value: string): string {
  const problem = workflowIdProblem(value);
  if (problem) throw new ValidationError(problem, { issues: [{ code: 'invalid_workflow_id', path: ['workflowId'], message: problem }] });
  return value;
}

/**
 * An id as one segment of a URL path (docs/api.md, Conventions). encodeURIComponent leaves `.` as it is, and a
 * segment of only `.` or `..` is a dot segment that URL handling removes: those two ids are written `%2E`, `%2E%2E`.
 */
export function idPathSegment(id: string): string {
  return id === '.' || id === '..' ? id.replaceAll('.', '%2E') : encodeURIComponent(id);
}
