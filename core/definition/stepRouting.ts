import type { ActivityDefinition } from './activity.js';
import { runActivity } from './runActivity.js';

/**
 * An engine that runs workflow code in this process routes the step calls made inside its runs. A router answers
 * `undefined` for calls that are not made inside one of its runs (it knows its runs through async context).
 * On Temporal this is never used: the worker swaps step modules for activity stubs at bundle time.
 */
export interface StepRouter {
  route(activity: ActivityDefinition, input: unknown): Promise<unknown> | undefined;
}

// A Symbol.for key on globalThis, so two copies of this module (built and source) still share the routers.
const ROUTERS = Symbol.for('flowgate.stepRouters');
type Registry = { [ROUTERS]?: Set<StepRouter> };

function routers(): Set<StepRouter> {
  const registry = globalThis as Registry;
  return (registry[ROUTERS] ??= new Set());
}

/** Installs a router; returns the function that removes it. */
export function addStepRouter(router: StepRouter): () => void {
  routers().add(router);
  return () => routers().delete(router);
}

/** A step call: inside a run it goes to the engine; outside any run it simply runs (useful in unit tests of steps). */
export function callActivity(activity: ActivityDefinition, input: unknown): Promise<unknown> {
  for (const router of routers()) {
    const routed = router.route(activity, input);
    if (routed !== undefined) return routed;
  }
  return runActivity(activity, input);
}
