export { PromMetrics, type PromMetricsOptions } from './promMetrics.js';
export { MeteredEngine } from './meteredEngine.js';
export { MeteredCallbackSender } from './meteredCallbackSender.js';
export { startMetricsListener, type MetricsListener } from './metricsListener.js';
export { meteredRunObserver } from './meteredRunObserver.js';
