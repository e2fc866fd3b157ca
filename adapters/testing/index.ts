/** Parts of flowgate/testing: a clock that skips time, traces in memory, an engine whose waits skip the clock. */
export { VirtualClock, settle } from './virtualClock.js';
export { MemoryTraceStore } from './memoryTraceStore.js';
export { TimeSkipper, TimeSkippingEngine } from './timeSkipping.js';
