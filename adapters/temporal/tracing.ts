import type { Tracer } from '@opentelemetry/api';
import type { WorkflowClientInterceptor } from '@temporalio/client';
// The client half only: the package's index also loads its worker and workflow halves, which an API server lacks.
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client/index.js';

/**
 * The client interceptor that carries the active span (an HTTP request's) into the Temporal headers of the runs and
 * signals it starts, so the workflow and its activities join the request's trace. Loaded only with tracing on.
 */
export function tracingClientInterceptors(tracer: Tracer): WorkflowClientInterceptor[] {
  return [new OpenTelemetryWorkflowClientInterceptor({ tracer })];
}
