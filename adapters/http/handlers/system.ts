import { describeKey } from '../../../core/domain/access.js';
import type { z } from 'zod';
import type { KeyDescription, ReadinessView } from '../../../core/api/views.js';
import type { RouteContext, RouteResult } from '../route.js';
import type { HealthSchema } from '../schemas/operations.js';
import { causeChain } from '../errorTable.js';
import { matchesEtag } from '../etag.js';
import { NotFoundError } from '../transportErrors.js';
import { firstHeader, type RequestHeaders } from '../types.js';

/** Seconds a load balancer should wait before probing an unready instance again. */
const READINESS_RETRY_AFTER_SECONDS = '5';

/** GET /ready: 200 when the engine answers, 503 otherwise (also when the readiness check itself fails). */
export async function readiness(context: RouteContext): Promise<RouteResult<ReadinessView>> {
  try {
    const view = await context.api.readiness();
    if (view.status === 'ready') return { kind: 'json', status: 200, body: view };
    return { kind: 'json', status: 503, body: view, headers: { 'retry-after': READINESS_RETRY_AFTER_SECONDS } };
  } catch (error) {
    // A probe wants a 503 with the readiness shape, not a 500 error body.
    context.logger.error('readiness check failed', { error: causeChain(error) });
    return {
      kind: 'json',
      status: 503,
      body: { status: 'unavailable', engine: 'unknown', message: 'Readiness check failed.' },
      headers: { 'retry-after': READINESS_RETRY_AFTER_SECONDS },
    };
  }
}

/** GET /health: liveness; answering at all is the signal. */
export async function health(): Promise<RouteResult<z.output<typeof HealthSchema>>> {
  return { kind: 'json', status: 200, body: { status: 'ok' } };
}

/** GET /auth/key: what the calling key may do (docs/security.md); any valid key may ask, whatever its scopes. */
export async function keyDescription(context: RouteContext): Promise<RouteResult<KeyDescription>> {
  return { kind: 'json', status: 200, body: describeKey(context.key) };
}

/** GET /openapi.json: a client that has this document (`If-None-Match` names its tag) gets a 304 instead. */
export async function openApiDocument(headers: RequestHeaders, context: RouteContext): Promise<RouteResult<never>> {
  const { json, etag } = context.openApiDocument;
  const validators = { etag, 'cache-control': 'public, max-age=300' };
  if (matchesEtag(firstHeader(headers, 'if-none-match'), etag)) return { kind: 'not-modified', headers: validators };
  return { kind: 'serialized-json', status: 200, body: json, headers: validators };
}

/** GET /metrics: the Prometheus text exposition (docs/operations.md, Metrics). */
export async function metricsExposition(context: RouteContext): Promise<RouteResult<never>> {
  const { metrics } = context;
  if (!metrics) throw new NotFoundError('Metrics are not enabled on this server (METRICS=off, or an app made without `metrics`).');
  return { kind: 'text', status: 200, body: await metrics.exposition(), contentType: metrics.contentType };
}
