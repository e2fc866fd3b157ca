/** Adapters backed by the platform itself, shared by every composition. */
export { systemClock } from './systemClock.js';
export { randomIds } from './randomIds.js';
export { sha256Digest } from './sha256Digest.js';
