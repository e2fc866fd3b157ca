const NAME = /^[A-Za-z_][A-Za-z0-9_.:-]{0,199}$/;

/** Workflow, step and evaluator names: identifiers that are safe in activity types (`workflow#step`) and paths. */
export function assertDefinitionName(kind: string, name: unknown): string {
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new TypeError(
      `${kind} name ${JSON.stringify(name)} is invalid: use 1-200 letters, digits, "_", ".", ":" or "-", starting with a letter or "_"`,
    );
  }
  return name;
}

/** The activity type of a step inside a workflow, as history, errors and legacy `activityId` show it. */
export function activityTypeOf(workflowName: string, stepName: string): string {
  return `${workflowName}#${stepName}`;
}
