import { z } from 'zod';
import { DEPRECATION_HEADER } from './responseDocs.js';
import type { DocumentedHeader, ResponseDoc, Route } from './route.js';
import { BadRequestBodySchema, ErrorBodySchema, ValidationErrorBodySchema } from './schemas/common.js';
import { TraceRecordSchema } from './schemas/operations.js';
import { NoParamsSchema, NoQuerySchema } from './schemas/requests.js';
import {
  LegacyErrorDetailsSchema,
  SerializedFailureSchema,
  TraceInfoV2Schema,
  WorkflowResultLegacySchema,
  WorkflowResultV2Schema,
} from './schemas/results.js';
import { HistoryEventSchema, RunStatusViewSchema } from './schemas/runs.js';

/** docs/api.md: the API description's version, not the package's. */
export const API_DESCRIPTION_VERSION = '1.0.0';

type JsonObject = Record<string, unknown>;

/** The generated document: OpenAPI 3.1, built once per app and served serialized. */
export interface OpenApiDocument {
  openapi: '3.1.0';
  servers: { url: string; description?: string }[];
  info: { title: string; version: string; [field: string]: unknown };
  paths: Record<string, Record<string, JsonObject>>;
  components: { schemas: Record<string, JsonObject>; [field: string]: unknown };
  [field: string]: unknown;
}
type HeaderName = DocumentedHeader | 'X-Request-Id' | 'Sunset' | 'Link' | 'WWW-Authenticate';

const COMPONENT_PREFIX = '#/components/schemas/';

/** Schemas nested in several bodies: components of their own, so the document names them once. */
const SHARED_RESPONSE_SCHEMAS: readonly z.ZodType[] = [
  // The contract describes the two result versions as resources of their own; the union alone would inline them.
  WorkflowResultV2Schema,
  WorkflowResultLegacySchema,
  RunStatusViewSchema,
  HistoryEventSchema,
  SerializedFailureSchema,
  TraceInfoV2Schema,
  LegacyErrorDetailsSchema,
  TraceRecordSchema,
  ErrorBodySchema,
  ValidationErrorBodySchema,
];

const HEADERS: Readonly<Record<HeaderName, JsonObject>> = {
  'X-Request-Id': {
    description: 'The request id: a valid incoming `X-Request-Id` (1 to 200 of `A-Z a-z 0-9 . _ : -`) echoed, else a generated UUID. Logs carry the same id.',
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,200}$' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  Location: {
    description: 'The pinned result of the run the request waited on: `/workflow/{id}/runs/{rid}/result`.',
    schema: { type: 'string' },
  },
  Deprecation: {
    description: `This endpoint (or the legacy result shape requested with \`?v=legacy\`) is deprecated, since the moment given as a Structured Field Date, \`@\` and epoch seconds (RFC 9745): \`${DEPRECATION_HEADER}\`.`,
    schema: { type: 'string', pattern: '^@-?[0-9]{1,15}$' },
  },
  Sunset: { description: 'When the deprecated endpoint may be removed (HTTP-date).', schema: { type: 'string' } },
  Link: {
    description: 'The run-pinned successor: `</workflow/{id}/runs/{rid}/...>; rel="successor-version"`, with the actual ids when the run is known.',
    schema: { type: 'string' },
  },
  'WWW-Authenticate': { description: '`Bearer`.', schema: { type: 'string', enum: ['Bearer'] } },
  ETag: {
    description: 'A strong entity tag of the document\'s bytes; send it back in `If-None-Match` to revalidate a copy.',
    schema: { type: 'string' },
  },
  'Idempotency-Expires': {
    description: 'Requests with an `Idempotency-Key`: when the stored answer expires (HTTP-date); a retry with the same key until then gets this answer again.',
    schema: { type: 'string' },
  },
};

/** Generic answers every route may give, added to what each route documents itself. */
const RESPONSES = {
  unknownQuery: {
    description: 'ValidationError: a query parameter this operation does not take (with `issues`, code `unrecognized_keys`).',
    schema: BadRequestBodySchema,
  },
  badRequest: {
    description:
      'ValidationError: invalid path parameter, query, body or pagination token (with `issues`). Besides its schema, a JSON body must not nest deeper than MAX_JSON_DEPTH nor have, at any depth, a `__proto__` key or a `constructor` key holding a `prototype` (`issues[0].code` `too_deep`, `prototype_key`).',
    schema: BadRequestBodySchema,
  },
  unauthorized: { description: 'UnauthorizedError: missing or invalid bearer token.', schema: ErrorBodySchema },
  gone: { description: 'GoneError: deprecated endpoints are switched off (DEPRECATED_ENDPOINTS=off); use the run-pinned form.', schema: ErrorBodySchema },
  payloadTooLarge: { description: "PayloadTooLargeError: the body exceeds MAX_BODY_BYTES (on Temporal without S3, also a start's input over TEMPORAL_MAX_PAYLOAD_BYTES).", schema: ErrorBodySchema },
  unsupportedMediaType: { description: 'UnsupportedMediaTypeError: the body is not `application/json`.', schema: ErrorBodySchema },
  internal: { description: 'InternalError or EngineError: an internal failure (details are logged with the request id, never returned).', schema: ErrorBodySchema },
  unavailable: {
    description:
      'EngineUnavailableError: the workflow engine is unreachable right now; or ServerBusyError: too many open connections (MAX_CONNECTIONS) or event streams (MAX_EVENT_STREAMS); or, for a start with an Idempotency-Key on the embedded engine, IdempotencyStoreFullError: its key records are full (MEMORY_MAX_IDEMPOTENCY_BYTES). See Retry-After.',
    schema: ErrorBodySchema,
    headers: ['Retry-After'],
  },
} satisfies Record<string, ResponseDoc>;

/**
 * The OpenAPI 3.1 document, derived from the route table alone: paths and operations from the routes, parameters
 * from their params and query schemas, bodies and responses from their zod schemas through `z.toJSONSchema`.
 * Request schemas are rendered as clients send them (`io: 'input'`: defaults make fields optional), response
 * schemas as the server produces them.
 */
export function buildOpenApiDocument(routes: readonly Route[]): OpenApiDocument {
  const requestComponents = new ComponentSet('input');
  const responseComponents = new ComponentSet('output');
  for (const schema of SHARED_RESPONSE_SCHEMAS) responseComponents.add(schema);

  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    const responses = documentedResponses(route);
    const operation: JsonObject = {
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      tags: [...route.tags],
      ...(route.deprecated ? { deprecated: true } : {}),
      // OpenAPI 3.1 lets a bearer scheme's requirement name roles: here, the scope an API key needs (docs/security.md).
      security: route.public ? [] : [{ bearerAuth: route.scope === 'any' ? [] : [route.scope!] }],
      parameters: [...pathParameters(route), ...queryParameters(route), ...headerParameters(route)],
    };
    if (route.body) {
      operation.requestBody = {
        required: !route.body.optional,
        ...(route.body.optional ? { description: 'Optional: an empty body is the same as `{}`.' } : {}),
        content: { 'application/json': { schema: requestComponents.reference(route.body.schema) } },
      };
    }
    operation.responses = Object.fromEntries(
      Object.entries(responses).map(([status, doc]) => [status, responseObject(route, Number(status), doc, responseComponents)]),
    );
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operation;
  }

  return {
    openapi: '3.1.0',
    // A relative URL, resolved against where the document was fetched; app.ts puts the mount prefix here per request.
    servers: [{ url: '/' }],
    info: {
      title: 'flowgate',
      version: API_DESCRIPTION_VERSION,
      description:
        'An HTTP/JSON API in front of a workflow engine: start, run and wait, list, resume, stop, terminate and reset workflow runs, and read their results, status, inputs, history (also as server-sent events) and trace logs. Every response carries `X-Request-Id`; every error body is `{error, message}` plus `workflowId` when tied to an execution, and `issues` for a ValidationError. Every GET operation also answers HEAD (the same status and headers, no body).',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    tags: [
      { name: 'workflows', description: 'Start, run, list and resume workflows.' },
      { name: 'runs', description: 'Results, status, inputs, history and traces of runs.' },
      { name: 'control', description: 'Stop, terminate and reset runs.' },
      { name: 'system', description: 'Readiness, liveness and this description.' },
    ],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      schemas: mergeComponents(requestComponents.render(), responseComponents.render()),
      headers: HEADERS,
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key of the server (API_KEYS_FILE, docs/security.md) or its API_AUTH_TOKEN (one key with every scope). Required on every operation except GET /ready, GET /health and GET /openapi.json when the server has keys or a token configured. Each operation names the scope a key needs in its security requirement: `read` (every GET), `start` (start, run-and-wait, rerun), `control` (feedback, stop, terminate, reset, the bulk operations) or `admin` (everything, and GET /metrics); a key without it gets 403 ForbiddenError. A key limited to catalogs or workflows sees only their workflows and runs (another run is a 404, as if it did not exist) and starts only them (403).',
        },
      },
    },
  };
}

/** What the route documents itself plus the transport-level answers it can give. */
function documentedResponses(route: Route): Record<number, ResponseDoc> {
  const responses: Record<number, ResponseDoc> = { ...route.responses };
  const hasInput = route.params !== NoParamsSchema || route.query !== NoQuerySchema || route.body !== undefined;
  const addOrMerge = (status: number, doc: ResponseDoc): void => {
    const existing = responses[status];
    responses[status] = existing ? { ...existing, description: `${existing.description} Or: ${doc.description}`, headers: mergeHeaders(existing.headers, doc.headers) } : doc;
  };
  // Every operation refuses a query parameter it does not take, the probes and this document included (docs/api.md).
  addOrMerge(400, hasInput ? RESPONSES.badRequest : RESPONSES.unknownQuery);
  if (!route.public) addOrMerge(401, RESPONSES.unauthorized);
  if (!route.public && route.scope !== 'any') addOrMerge(403, forbidden(route));
  if (route.deprecated) addOrMerge(410, RESPONSES.gone);
  if (route.body) {
    addOrMerge(413, RESPONSES.payloadTooLarge);
    addOrMerge(415, RESPONSES.unsupportedMediaType);
  }
  addOrMerge(500, RESPONSES.internal);
  // Public routes never ask the engine for anything but readiness (which documents its own 503), and are answered
  // even on a connection beyond the cap, so probes keep working under overload.
  if (!route.public) addOrMerge(503, RESPONSES.unavailable);
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

/** 403: the key lacks the route's scope; a start, and a catalog's list, also when the key is limited to other workflows. */
function forbidden(route: Route): ResponseDoc {
  const limits = STARTS_OR_LISTS_WORKFLOWS.has(route.operationId) ? ' Or: the key is limited to other catalogs or workflows.' : '';
  return { description: `ForbiddenError: the API key lacks the \`${route.scope}\` scope.${limits}`, schema: ErrorBodySchema };
}

/** The operations that name a workflow or catalog to use rather than a run (a run outside a key's limits is a 404). */
const STARTS_OR_LISTS_WORKFLOWS = new Set(['runWorkflow', 'startWorkflow', 'listWorkflows']);

function mergeHeaders(a: readonly DocumentedHeader[] | undefined, b: readonly DocumentedHeader[] | undefined): DocumentedHeader[] {
  return [...new Set([...(a ?? []), ...(b ?? [])])];
}

function responseObject(route: Route, status: number, doc: ResponseDoc, components: ComponentSet): JsonObject {
  const headerNames = new Set<HeaderName>(['X-Request-Id', ...(doc.headers ?? [])]);
  if (status === 401) headerNames.add('WWW-Authenticate');
  if (route.deprecated) for (const name of ['Deprecation', 'Sunset', 'Link'] as const) headerNames.add(name);
  const content: JsonObject = {};
  if (doc.schema) content['application/json'] = { schema: components.reference(doc.schema) };
  if (doc.text !== undefined) content['text/plain'] = { schema: { type: 'string', description: doc.text } };
  if (doc.eventStream) content['text/event-stream'] = { schema: eventStreamSchema(doc.eventStream, components) };
  return {
    description: doc.eventStream ? `${doc.description} ${doc.eventStream.description}` : doc.description,
    headers: Object.fromEntries([...headerNames].map((name) => [name, { $ref: `#/components/headers/${name}` }])),
    ...(Object.keys(content).length > 0 ? { content } : {}),
  };
}

/**
 * An event stream as the events it sends: one of an object per event name, its `event` a constant, its `data` the
 * event's schema (the line of JSON, parsed), its `id` when it has one. What OpenAPI 3.2 calls the item schema of a
 * sequential media type, in the 3.1 `schema`, where generators and viewers read it.
 */
function eventStreamSchema(stream: NonNullable<ResponseDoc['eventStream']>, components: ComponentSet): JsonObject {
  const events = Object.entries(stream.events).map(([name, event]) => ({
    title: `${name} event`,
    description: event.description,
    type: 'object',
    required: event.id === undefined || event.idOnlySometimes ? ['event', 'data'] : ['event', 'id', 'data'],
    properties: {
      event: { const: name },
      ...(event.id === undefined ? {} : { id: { type: 'string', description: event.id } }),
      data: components.reference(event.data),
    },
    additionalProperties: false,
  }));
  return { description: `${stream.description} One item per event: its \`event:\` name, its \`id:\` when it has one, and its \`data:\`, one line of JSON (here parsed).`, oneOf: events };
}

function pathParameters(route: Route): JsonObject[] {
  return objectProperties(route.params).map(({ name, schema }) => parameter(name, 'path', true, schema));
}

function queryParameters(route: Route): JsonObject[] {
  return objectProperties(route.query).map(({ name, schema, required }) => parameter(name, 'query', required, schema));
}

/** Header parameters OpenAPI 3.1 says to ignore (4.8.12.1): the media types and the security scheme say them. */
const IGNORED_HEADER_PARAMETERS = new Set(['accept', 'content-type', 'authorization']);

function headerParameters(route: Route): JsonObject[] {
  return route.requestHeaders.map((header) => {
    if (IGNORED_HEADER_PARAMETERS.has(header.name.toLowerCase())) {
      throw new Error(`OpenAPI: ${route.method} ${route.path} declares the header ${header.name}, which OpenAPI 3.1 ignores as a parameter`);
    }
    const schema = header.schema ? (z.toJSONSchema(header.schema, { io: 'input', unrepresentable: 'any' }) as JsonObject) : { type: 'string' };
    const { $schema: _schema, description: _description, ...rest } = schema;
    return { name: header.name, in: 'header', required: false, description: header.description, schema: rest };
  });
}

function parameter(name: string, location: 'path' | 'query', required: boolean, schema: JsonObject): JsonObject {
  const { description, deprecated, ...rest } = schema;
  return {
    name,
    in: location,
    required,
    ...(typeof description === 'string' ? { description } : {}),
    ...(deprecated === true ? { deprecated: true } : {}),
    schema: rest,
  };
}

/** The properties of a params or query object schema, as clients send them. */
function objectProperties(schema: z.ZodType): { name: string; schema: JsonObject; required: boolean }[] {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonObject;
  const properties = (json.properties ?? {}) as Record<string, JsonObject>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({ name, schema: property, required: required.has(name) }));
}

/**
 * Named schemas rendered through one zod registry, so a schema nested in another becomes a `$ref` to its
 * component. Names come from each schema's `title` meta (schemas/*.ts); an untitled body is a bug.
 */
class ComponentSet {
  private readonly registry = z.registry<{ id: string }>();
  private readonly names = new Map<z.ZodType, string>();

  constructor(private readonly io: 'input' | 'output') {}

  add(schema: z.ZodType): string {
    const known = this.names.get(schema);
    if (known) return known;
    const title = z.globalRegistry.get(schema)?.title;
    if (!title) throw new Error(`OpenAPI: a request or response body schema has no title (${schema.def.type})`);
    for (const [other, name] of this.names) {
      if (name === title && other !== schema) throw new Error(`OpenAPI: two different schemas are titled ${title}`);
    }
    this.registry.add(schema, { id: title });
    this.names.set(schema, title);
    return title;
  }

  reference(schema: z.ZodType): JsonObject {
    return { $ref: `${COMPONENT_PREFIX}${this.add(schema)}` };
  }

  render(): Record<string, JsonObject> {
    if (this.names.size === 0) return {};
    const rendered = z.toJSONSchema(this.registry, {
      io: this.io,
      unrepresentable: 'any',
      uri: (id) => `${COMPONENT_PREFIX}${id}`,
    }) as { schemas: Record<string, JsonObject> };
    // Each component is a standalone JSON Schema document for zod; inside OpenAPI they are not.
    return Object.fromEntries(
      Object.entries(rendered.schemas).map(([name, { $schema: _schema, $id: _id, ...component }]) => [name, component]),
    );
  }
}

function mergeComponents(...sets: Record<string, JsonObject>[]): Record<string, JsonObject> {
  const merged: Record<string, JsonObject> = {};
  for (const set of sets) {
    for (const [name, schema] of Object.entries(set)) {
      const existing = merged[name];
      if (existing && JSON.stringify(existing) !== JSON.stringify(schema)) {
        throw new Error(`OpenAPI: component ${name} differs between requests and responses`);
      }
      merged[name] = schema;
    }
  }
  return Object.fromEntries(Object.entries(merged).sort(([a], [b]) => a.localeCompare(b)));
}
