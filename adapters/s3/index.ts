export { S3TraceStore, type S3TraceStoreOptions } from './s3TraceStore.js';
export { traceObjectKey } from './s3Locations.js';
