export { PromMetrics, type PromMetricsOptions } from './promMetrics.js';
export { MeteredEngine } from './meteredEngine.js';
export { MeteredCallbackSender } from './meteredCallbackSender.js';
export { startMetricsListener, type MetricsListener } from './metricsListener.js';
export { meterStepAttempt, type ReportAggregations, type StepAttemptMeter } from './stepAttemptMeter.js';
export { CombinedExposition, type ExpositionSource } from './combinedExposition.js';
