// In your own project: import { defineHooks } from 'flowgate';
import { defineHooks, type Aggregations, type WorkflowDetails } from '../../core/definition/index.js';

/**
 * Meters cost and HTTP use per step and per run with one hook file: every step attempt's aggregations are added to
 * its run's totals, and when the run ends one JSON line reports the run and each step. Replace `report` with your
 * metrics client. Declare the file in the worker project's package.json: `"flowgate": {"hookFiles": [...]}`.
 */
interface RunMeter {
  total: Aggregations;
  steps: Record<string, Aggregations & { attempts: number }>;
}

const runs = new Map<string, RunMeter>();
/** Terminated and timed-out runs run no code when they end, so no end hook comes: forget the oldest beyond this. */
const MAX_OPEN_RUNS = 10_000;

export let report = (line: string): void => console.log(line);
/** For tests and embedding: where the per-run lines go. */
export function reportTo(sink: (line: string) => void): void {
  report = sink;
}

function meterOf(runId: string): RunMeter {
  let meter = runs.get(runId);
  if (!meter) {
    meter = { total: { totalCost: 0, httpCalls: 0, tokens: 0 }, steps: {} };
    runs.set(runId, meter);
    if (runs.size > MAX_OPEN_RUNS) runs.delete(runs.keys().next().value!);
  }
  return meter;
}

function add(into: Aggregations, from: Aggregations): void {
  into.totalCost += from.totalCost;
  into.httpCalls += from.httpCalls;
  into.tokens += from.tokens;
}

function close(details: WorkflowDetails, status: string): void {
  const meter = runs.get(details.runId) ?? { total: { totalCost: 0, httpCalls: 0, tokens: 0 }, steps: {} };
  runs.delete(details.runId);
  report(JSON.stringify({ metering: details.workflowType, workflowId: details.workflowId, runId: details.runId, status, ...meter }));
}

export default defineHooks((hooks) => {
  const attempt = ({ workflowDetails, activityInfo, aggregations }: { workflowDetails: WorkflowDetails; activityInfo: { name: string }; aggregations: Aggregations }) => {
    const meter = meterOf(workflowDetails.runId);
    const step = (meter.steps[activityInfo.name] ??= { totalCost: 0, httpCalls: 0, tokens: 0, attempts: 0 });
    step.attempts += 1;
    add(step, aggregations);
    add(meter.total, aggregations);
  };
  hooks.onActivityEnd(attempt);
  hooks.onActivityError(attempt);
  hooks.onWorkflowEnd(({ workflowDetails }) => close(workflowDetails, 'ended'));
  hooks.onWorkflowError(({ workflowDetails, error }) => close(workflowDetails, error.name));
});
