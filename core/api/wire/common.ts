import { z } from 'zod';
import { MAX_CATALOG_NAME_LENGTH, MAX_WORKFLOW_ID_LENGTH, runIdProblem, WORKFLOW_ID_PATTERN, workflowIdProblem } from '../../domain/ids.js';
import { normaliseStatusFilter, RUN_STATUSES, TERMINAL_STATUSES } from '../../domain/status.js';
import { CALLBACK_URL_PATTERN, callbackUrlProblem, MAX_CALLBACK_URL_LENGTH } from '../../domain/callback.js';
import { fitsCharacters, hasUnpairedSurrogate } from '../../domain/text.js';
import { KEY_ID_PATTERN, KEY_ID_RULE } from '../../domain/access.js';
import { SCHEDULE_ID_PATTERN, SCHEDULE_ID_RULE } from '../../domain/schedule.js';

/*
 * The wire's building blocks, shared by request and response schemas (core/api/wire is the one declaration of the
 * API's shapes; docs/architecture.md). Every schema that appears as a whole request or response body carries a
 * `title`: the OpenAPI generator (adapters/http/openapi.ts) turns titled top-level schemas into named components.
 */

/** An API key's id (docs/security.md): who started or changed a run. The rule lives in core/domain/access.ts. */
export const KeyIdSchema = z
  .string()
  .regex(KEY_ID_PATTERN, `An API key id ${KEY_ID_RULE}`)
  .meta({ description: "An API key's id (never its secret)." });

/** A schedule's id (docs/schedules.md); the rule lives in core/domain/schedule.ts. */
export const ScheduleIdSchema = z
  .string()
  .regex(SCHEDULE_ID_PATTERN, `A schedule id ${SCHEDULE_ID_RULE}`)
  .meta({ description: 'Schedule id: it begins the workflow id of every run the schedule starts.' });

/** docs/api.md: 1 to 1000 characters, no control characters. The rule itself lives in core/domain/ids.ts. */
export const WorkflowIdSchema = z
  .string()
  .superRefine((value, context) => {
    const problem = workflowIdProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem, params: { reason: 'invalid_workflow_id' } });
  })
  // The check above is opaque to JSON Schema; restate it for the document.
  .meta({
    description:
      "Workflow id: 1 to 1000 characters, no control characters. On Temporal the cluster's `limit.maxIDLength` also applies, in bytes of UTF-8 (1000 by default): a longer id is a 400.",
    minLength: 1,
    maxLength: MAX_WORKFLOW_ID_LENGTH,
    pattern: WORKFLOW_ID_PATTERN,
  });

/** Where a run's result is POSTed when it closes (docs/callbacks.md). The rule itself lives in core/domain/callback.ts. */
export const CallbackUrlSchema = z
  .string()
  .superRefine((value, context) => {
    const problem = callbackUrlProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem, params: { reason: 'invalid_callback_url' } });
  })
  .meta({
    description:
      'When the run closes, flowgate POSTs its version-2 result (the body of GET /workflow/{id}/runs/{rid}/result) here, signed as webhook calls are, with `Idempotency-Key: <workflowId>:<runId>`, retried with backoff for CALLBACK_RETRY_MAX_SECONDS. An http or https URL with a host name or IPv4 address, no user info or fragment. Loopback, private, link-local (cloud metadata), unspecified, multicast and reserved addresses are not called unless OUTBOUND_ALLOWLIST opens them: such an address in the URL is a 400; a host name is checked when the callback is sent, on the address it resolves to. See docs/callbacks.md for which closings are delivered on each engine.',
    minLength: 1,
    maxLength: MAX_CALLBACK_URL_LENGTH,
    pattern: CALLBACK_URL_PATTERN,
  });

export const RunIdSchema = z
  .string()
  .superRefine((value, context) => {
    const problem = runIdProblem(value);
    if (problem) context.addIssue({ code: 'custom', message: problem, params: { reason: 'invalid_run_id' } });
  })
  .meta({ description: 'Run id (a UUID).', format: 'uuid' });

/**
 * Text an engine is handed: at most `max` characters, counted as the document's maxLength counts them (code points;
 * zod's own `.max()` counts UTF-16 code units, so 600 emoji would be refused as 1200), and well-formed Unicode.
 */
export function engineText(bounds: { min?: number; max?: number } = {}) {
  const { min = 0, max } = bounds;
  return z
    .string()
    .min(min)
    .superRefine((value, context) => {
      if (max !== undefined && !fitsCharacters(value, max)) {
        context.addIssue({ code: 'custom', message: `must be at most ${max} characters`, params: { reason: 'too_long' } });
      }
      if (hasUnpairedSurrogate(value)) {
        context.addIssue({ code: 'custom', message: 'must be well-formed Unicode (no unpaired surrogate)', params: { reason: 'unpaired_surrogate' } });
      }
    })
    .meta(max === undefined ? {} : { maxLength: max });
}

export const CatalogNameSchema = engineText({ min: 1, max: MAX_CATALOG_NAME_LENGTH }).meta({
  description: 'Catalog (= task queue). The default catalog when omitted.',
});

export const WorkflowNameSchema = engineText({ min: 1, max: 200 }).meta({ description: 'Registered workflow name.' });

export const AnyJsonSchema = z.unknown().meta({ description: 'Any JSON value.' });
export const JsonObjectSchema = z.record(z.string(), z.unknown()).meta({ description: 'A JSON object.' });

export const TimestampSchema = z.iso.datetime().meta({ description: 'ISO 8601 UTC.' });

export const RunStatusSchema = z.enum(RUN_STATUSES).meta({ description: 'Run status; `running` while open.' });
export const TerminalStatusSchema = z.enum(TERMINAL_STATUSES);

/** A run-status filter (the runs list's query, the bulk bodies): the old name `continued` is read as the new one. */
export const StatusFilterSchema = z
  .string()
  .transform((value, context) => {
    const status = normaliseStatusFilter(value);
    if (status === undefined) {
      context.addIssue({ code: 'custom', message: `status must be one of ${RUN_STATUSES.join(', ')}` });
      return z.NEVER;
    }
    return status;
  })
  .meta({
    description: 'Only runs with this status. `continued` is accepted as the old name of `continued_as_new`.',
    enum: [...RUN_STATUSES, 'continued'],
  });
