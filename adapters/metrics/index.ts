export { PromMetrics, type PromMetricsOptions } from './promMetrics.js';
export { MeteredEngine } from './meteredEngine.js';
export { MeteredCallbackSender } from './meteredCallbackSender.js';
export { startMetricsListener, type MetricsListener } from './metricsListener.js';
export { meteredStepAttempt, type ReportAggregations } from './meteredStepAttempt.js';
export { CombinedExposition, type ExpositionSource } from './combinedExposition.js';
