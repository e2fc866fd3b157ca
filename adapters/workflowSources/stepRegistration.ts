import type { ActivityDefinition } from '../../core/definition/activity.js';
import { StepNameCollisionError } from './sourceErrors.js';

/** A module that defines steps or evaluators, and where it comes from: the worker's own code or an installed package. */
export interface StepModule {
  modulePath: string;
  /** The package the module belongs to; undefined for the worker's own (local) modules. */
  packageName: string | undefined;
  steps: readonly ActivityDefinition[];
}

export interface StepCollision {
  name: string;
  /** The registration that lost, and the one that won (the later). */
  replaced: string;
  winner: string;
}

export interface StepTable {
  byName: Map<string, ActivityDefinition>;
  collisions: StepCollision[];
}

/**
 * Registers steps and evaluators in one name space, in a fixed order: packages by name, then the worker's own
 * modules, each by path. When two definitions share a name the later registration wins (docs/packages.md:
 * packaged steps and evaluators share one name space with local ones); a worker's own module therefore overrides a
 * package's step of the same name, which is the one override an author can control. Every collision is reported;
 * two of the worker's own modules defining one name is StepNameCollisionError (nothing to override there).
 */
export function registerSteps(modules: readonly StepModule[]): StepTable {
  const byName = new Map<string, ActivityDefinition>();
  const registeredBy = new Map<string, string>();
  const localModuleOf = new Map<string, string>();
  const collisions: StepCollision[] = [];
  for (const module of [...modules].sort(registrationOrder)) {
    const source = describeStepSource(module);
    for (const step of module.steps) {
      const known = byName.get(step.name);
      const earlierLocal = localModuleOf.get(step.name);
      if (known && known !== step && module.packageName === undefined && earlierLocal !== undefined) {
        throw new StepNameCollisionError(step.name, earlierLocal, module.modulePath);
      }
      if (module.packageName === undefined) localModuleOf.set(step.name, module.modulePath);
      if (known && known !== step) collisions.push({ name: step.name, replaced: registeredBy.get(step.name)!, winner: source });
      if (known !== step) registeredBy.set(step.name, source);
      byName.set(step.name, step);
    }
  }
  return { byName, collisions };
}

/** One log line per collision, naming both registrations. */
export function describeStepCollision(collision: StepCollision): string {
  return `step name "${collision.name}" is registered twice: ${collision.replaced} and ${collision.winner}; the later registration (${collision.winner}) wins`;
}

function describeStepSource(module: StepModule): string {
  return module.packageName === undefined ? `local module ${module.modulePath}` : `package ${module.packageName} (${module.modulePath})`;
}

function registrationOrder(a: StepModule, b: StepModule): number {
  if (a.packageName !== b.packageName) {
    if (a.packageName === undefined) return 1;
    if (b.packageName === undefined) return -1;
    return a.packageName < b.packageName ? -1 : 1;
  }
  return a.modulePath < b.modulePath ? -1 : a.modulePath > b.modulePath ? 1 : 0;
}
