// On globalThis, so the steps defined through two copies of flowgate in one process (a built one and sources, or the
// package a test imports and the one the testing kit runs) are one list.
const DEFINED_STEP_NAMES = Symbol.for('flowgate.definedStepNames');
type Registry = { [DEFINED_STEP_NAMES]?: Set<string> };

function names(): Set<string> {
  const registry = globalThis as Registry;
  return (registry[DEFINED_STEP_NAMES] ??= new Set());
}

/**
 * Notes that a step or evaluator of this name was defined in this process. Names only (definitions made in a loop
 * are not kept alive): what a step replacement by name is checked against when the workflows are given as
 * definitions, whose steps no module list tells (the steps a workflow calls are defined when its module, or the test
 * file that defines it, is evaluated, before the workflow can be handed over).
 */
export function recordDefinedStep(name: string): void {
  names().add(name);
}

/** The names of every step and evaluator defined in this process so far. */
export function definedStepNames(): ReadonlySet<string> {
  return names();
}
