/** A JSON Schema document (draft 2020-12), as zod's `toJSONSchema` produces it. */
export type JsonSchema = Record<string, unknown> | boolean;
