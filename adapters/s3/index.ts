export { S3TraceStore, type S3TraceStoreOptions } from './s3TraceStore.js';
export { traceObjectKey } from './s3Locations.js';
export { S3ClaimCheckStore, ClaimCheckMissingError, ClaimCheckCorruptError, type S3ClaimCheckStoreOptions } from './s3ClaimCheckStore.js';
