/** Terminal statuses (docs/api.md, Status view), in the order it lists them. */
export const TERMINAL_STATUSES = [
  'completed',
  'failed',
  'cancelled',
  'terminated',
  'timed_out',
  'continued_as_new',
] as const;

export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

/** Every status a run can report: the terminal ones plus `running` for an open run (docs/api.md). */
export const RUN_STATUSES = ['running', ...TERMINAL_STATUSES] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export function isTerminal(status: RunStatus): status is TerminalStatus {
  return status !== 'running';
}

/** The old spelling the run-list filter still accepts (docs/api.md, Status view and run list). */
export function normaliseStatusFilter(value: string): RunStatus | undefined {
  if (value === 'continued') return 'continued_as_new';
  return (RUN_STATUSES as readonly string[]).includes(value) ? (value as RunStatus) : undefined;
}
