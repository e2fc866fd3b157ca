export { HookBus, HookTimeoutError, DEFAULT_HOOK_TIMEOUT_MS, type HookBusOptions } from './hookBus.js';
export { HookRuntime } from './hookRuntime.js';
export { loadHookFiles, HookFileError } from './hookFiles.js';
export { loadWorkerHooks, type WorkerHooksOptions } from './workerHooks.js';
