/**
 * Temporal records a reset's reason but not the step it went back to, which flowgate's `workflow_reset` event names.
 * The step travels inside the reason, in a form that still reads well in Temporal's own UI:
 * `<reason> (reset to after step "<step>")`. Step names cannot contain quotes (core/definition/names.ts).
 */
const STEP_SUFFIX = /^([\s\S]*) \(reset to after step "([^"]+)"\)$/;

export function resetReasonWithStep(reason: string, stepName: string): string {
  return `${reason} (reset to after step "${stepName}")`;
}

/** The reason and step of a flowgate reset; a reset made elsewhere (Temporal UI, CLI) has only a reason. */
export function parseResetReason(text: string): { reason: string; stepName?: string } {
  const match = STEP_SUFFIX.exec(text);
  if (!match) return { reason: text };
  return { reason: match[1] ?? '', stepName: match[2] ?? '' };
}
