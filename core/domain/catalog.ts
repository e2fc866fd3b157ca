import type { JsonSchema } from './json.js';

/** A workflow type as a catalog publishes it: enough for the API to list and validate without a worker. */
export interface WorkflowTypeInfo {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /** What POST /workflow/feedback checks a reply's `payload` against; absent when the workflow declares none. */
  feedbackSchema?: JsonSchema;
}

export interface CatalogDescription {
  name: string;
  /** False when the catalog is known but no worker serves it now (the API answers 503). */
  available: boolean;
  workflows: WorkflowTypeInfo[];
}
