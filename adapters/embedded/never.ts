/**
 * A promise that never settles: what workflow code gets once its run was closed under it, as workflow code on a
 * closed Temporal run never resumes. A leaf of its own, so the files of a run's operations (steps, webhook waits,
 * children, the context) need nothing at run time from runExecution.ts, which uses them.
 */
export function never<T>(): Promise<T> {
  return new Promise<T>(() => {});
}
