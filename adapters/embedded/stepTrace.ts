import type { TraceStep } from '../../core/domain/trace.js';
import type { Payload } from './payload.js';

/** A trace step as the engine keeps it: its input and output are the payloads its history events show. */
export type StepTrace = Omit<TraceStep, 'input' | 'output'> & {
  input: Payload;
  /** Null until the step completed. */
  output: Payload | null;
};

/** The trace step as the trace file shows it: payloads decoded. */
export function traceStepOf(step: StepTrace): TraceStep {
  return { ...step, input: step.input.value(), output: step.output === null ? null : (step.output.value() ?? null) };
}
