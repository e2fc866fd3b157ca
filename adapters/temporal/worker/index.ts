/** The Node side of flowgate's Temporal worker: bundling with step swapping, activities, traces, catalog. */
export { bundleCatalog, type BundleCatalogOptions, type CatalogBundle } from './bundle.js';
export { catalogActivities, assertEveryStepRegistered, type ActivityRegistration, type ActivityFunction } from './activities.js';
export { webhookStepDefinition } from './webhookActivity.js';
export { callbackActivities } from './callbackActivity.js';
export { HeartbeatProgress, PROGRESS_HEARTBEAT_INTERVAL } from './heartbeatProgress.js';
export { TraceCollector } from './traceCollector.js';
export { traceLocationActivities } from './traceLocationActivity.js';
export { runSinks } from './runSinks.js';
export { WorkflowDetailsCarrier, type RunDescriptionLookup } from './workflowDetailsCarrier.js';
export { workflowTypeInfos } from './catalogContent.js';
export { CatalogPublisher } from './catalogPublisher.js';
export { WorkerLifecycle, type WorkerHandle } from './workerLifecycle.js';
export { nativeConnectionOptions } from './nativeConnection.js';
export { temporalLoggerFor } from './temporalLogger.js';
export { workflowModulesIn } from '../../workflowSources/localModules.js';
export { loopbackExporterAddress, sdkMetricsSource } from './sdkMetrics.js';
