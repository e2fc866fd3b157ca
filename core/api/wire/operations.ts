import { z } from 'zod';
import { SCOPES } from '../../domain/access.js';
import { AnyJsonSchema, CatalogNameSchema, KeyIdSchema, RunIdSchema, TimestampSchema, WorkflowIdSchema, WorkflowNameSchema } from './common.js';
import { SerializedFailureSchema } from './results.js';
import { RerunOfSchema } from './runs.js';

export const StartResponseSchema = z
  .strictObject({ workflowId: WorkflowIdSchema, runId: RunIdSchema, status: z.literal('running') })
  .meta({ title: 'StartResponse' });

const runReferenceShape = { workflowId: WorkflowIdSchema, runId: RunIdSchema };

export const StopResponseSchema = z
  .strictObject(runReferenceShape)
  .meta({ title: 'StopResponse', description: 'The run the cancellation was sent to.' });

export const ResetResponseSchema = z
  .strictObject(runReferenceShape)
  .meta({ title: 'ResetResponse', description: '`runId` is the NEW run that replays from the step.' });

export const FeedbackResponseSchema = z
  .strictObject(runReferenceShape)
  .meta({ title: 'FeedbackResponse', description: 'The run the payload was delivered to.' });

export const TerminateResponseSchema = z
  .strictObject({ terminated: z.literal(true), ...runReferenceShape })
  .meta({ title: 'TerminateResponse' });

/** A JSON Schema document (draft 2020-12) as a catalog publishes it: an object, or `true`/`false`. */
const PublishedJsonSchema = z
  .union([z.record(z.string(), z.unknown()), z.boolean()])
  .meta({ description: 'JSON Schema (draft 2020-12), as the workflow\'s catalog publishes it.' });

export const WorkflowListSchema = z
  .strictObject({
    workflows: z.array(
      z.strictObject({
        name: z.string(),
        description: z.string(),
        inputSchema: PublishedJsonSchema.meta({ description: 'What a start\'s `input` is validated against before anything starts.' }),
        outputSchema: PublishedJsonSchema.meta({ description: 'What a completed run\'s `output` matches.' }),
        feedbackSchema: PublishedJsonSchema.optional().meta({
          description:
            'What a reply\'s `payload` (POST /workflow/feedback) is validated against before it is delivered. Absent when the workflow declares none: any JSON object is delivered.',
        }),
      }),
    ),
  })
  .meta({ title: 'WorkflowList' });

const TraceStepSchema = z.looseObject({
  name: z.string(),
  kind: z.enum(['step', 'evaluator', 'internal_step']),
  input: AnyJsonSchema,
  output: AnyJsonSchema,
  error: SerializedFailureSchema.nullable(),
  startedAt: TimestampSchema,
  endedAt: TimestampSchema.nullable(),
  attempt: z.number().int().positive(),
});

// Loose: a trace file may have been written by another release than the one serving it.
export const TraceRecordSchema = z
  .looseObject({
    workflowId: z.string(),
    workflowName: z.string(),
    input: AnyJsonSchema,
    output: AnyJsonSchema,
    error: SerializedFailureSchema.nullable(),
    startedAt: TimestampSchema,
    closedAt: TimestampSchema.nullable(),
    steps: z.array(TraceStepSchema),
  })
  .meta({ title: 'TraceRecord' });

export const TraceLogSchema = z
  .discriminatedUnion('source', [
    z.strictObject({
      source: z.literal('remote'),
      runId: RunIdSchema,
      data: TraceRecordSchema.optional().meta({
        description: 'Absent only when the stored object is not a readable trace (corrupt) and there is no local copy.',
      }),
    }),
    z.strictObject({
      source: z.literal('local'),
      runId: RunIdSchema,
      localPath: z.string(),
      data: TraceRecordSchema.optional().meta({ description: 'Present when the API server can read the file itself.' }),
    }),
  ])
  .meta({ title: 'TraceLog' });

export const ReadinessSchema = z
  .discriminatedUnion('status', [
    z.strictObject({ status: z.literal('ready'), engine: z.string() }),
    z.strictObject({ status: z.literal('unavailable'), engine: z.string(), message: z.string() }),
  ])
  .meta({ title: 'Readiness' });


const ScopeSchema = z.enum(SCOPES);

/** GET /auth/key (docs/security.md): what the calling API key may do. */
export const KeyDescriptionSchema = z
  .strictObject({
    authentication: z.enum(['on', 'off']).meta({ description: '`off`: the server asks for no key, and every call is allowed.' }),
    key: z
      .strictObject({
        id: KeyIdSchema,
        scopes: z.array(ScopeSchema),
        catalogs: z.array(CatalogNameSchema).nullable().meta({ description: 'The only catalogs it may use; null: every catalog.' }),
        workflows: z.array(WorkflowNameSchema).nullable().meta({ description: 'The only workflows it may use; null: every workflow.' }),
        expiresAt: TimestampSchema.nullable().meta({ description: 'After this it authenticates nothing; null: it does not expire.' }),
      })
      .nullable()
      .meta({ description: 'The key the call authenticated with; null when authentication is off. Never its secret.' }),
    can: z
      .strictObject(Object.fromEntries(SCOPES.map((scope) => [scope, z.boolean()])) as Record<(typeof SCOPES)[number], z.ZodBoolean>)
      .meta({ description: 'Whether the key holds each scope, `admin` counted in (it holds them all); all true when authentication is off.' }),
  })
  .meta({ title: 'KeyDescription' });

export const BulkControlResponseSchema = z
  .strictObject({
    action: z.enum(['terminate', 'cancel']),
    dryRun: z.boolean(),
    matched: z.number().int().min(0).meta({ description: 'Runs the filter matched: the open ones (at most 10,000 per call) plus `alreadyClosed`.' }),
    alreadyClosed: z.number().int().min(0).meta({ description: 'Matched runs already closed when listed: counted, not acted on.' }),
    succeeded: z.number().int().min(0).meta({ description: 'Runs terminated or cancelled; 0 on a dry run.' }),
    failures: z
      .array(z.strictObject({ workflowId: z.string(), runId: z.string(), error: z.string(), message: z.string() }))
      .meta({ description: 'Open runs that could not be acted on, with the error a single call would have answered (e.g. WorkflowClosedError for a run that closed in between).' }),
    truncated: z.boolean().meta({ description: 'More runs matched than one call takes: call again.' }),
  })
  .meta({ title: 'BulkControlResponse' });

export const RerunResponseSchema = z
  .strictObject({ workflowId: WorkflowIdSchema, runId: RunIdSchema, status: z.literal('running'), rerunOf: RerunOfSchema })
  .meta({ title: 'RerunResponse', description: 'The new run, as POST /workflow answers, and the run it repeats.' });

export const BulkRerunResponseSchema = z
  .strictObject({
    action: z.literal('rerun'),
    dryRun: z.boolean(),
    matched: z.number().int().min(0).meta({ description: 'Runs the filter matched, open and closed (at most 10,000 per call).' }),
    runs: z.array(z.strictObject(runReferenceShape)).meta({ description: 'The matched runs, as listed: on a dry run, what would be rerun.' }),
    started: z.array(RerunResponseSchema).meta({ description: 'The new runs, each with the run it repeats; empty on a dry run.' }),
    succeeded: z.number().int().min(0).meta({ description: 'Runs started; 0 on a dry run.' }),
    failures: z
      .array(z.strictObject({ workflowId: z.string(), runId: z.string(), error: z.string(), message: z.string() }))
      .meta({ description: 'Matched runs that could not be rerun, with the error a single rerun would have answered (e.g. CatalogNotAvailableError, ValidationError for an input the schema no longer accepts).' }),
    truncated: z.boolean().meta({ description: 'More runs matched than one call takes: only the first 10,000 listed were rerun. Calling again would rerun them again; narrow the filter instead.' }),
  })
  .meta({ title: 'BulkRerunResponse' });
