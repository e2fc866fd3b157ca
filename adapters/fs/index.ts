export { FsTraceStore, type FsTraceStoreOptions } from './fsTraceStore.js';
