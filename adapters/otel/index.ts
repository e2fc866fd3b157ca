export { OtelTracing, tracesUrl, type OtelTracingOptions } from './otelTracing.js';
