/*
 * Compiled, never run (tests/unit/definition/workflowSpecTypes.test.ts): what workflow() requires, as its runtime
 * does. A description may be left out (it is published as ''); the input and output schemas may not (the API
 * validates with them and publishes them). Each `@ts-expect-error` fails the compile if the call it marks compiles.
 * Compiled with exactOptionalPropertyTypes, so `description: undefined` (a value read from somewhere) is accepted too.
 */
import { z } from 'zod';
import { workflow, type WorkflowDefinition } from '../../../../core/definition/index.js';

const input = z.object({ name: z.string() });
const output = z.object({ greeting: z.string() });
const fn = async ({ name }: { name: string }) => ({ greeting: `Hello, ${name}` });

export const withoutDescription: WorkflowDefinition<{ name: string }, { greeting: string }> = workflow({ name: 'greet', inputSchema: input, outputSchema: output, fn });
export const withDescription = workflow({ name: 'greet', description: 'Greets', inputSchema: input, outputSchema: output, fn });
export const withUndefinedDescription = workflow({ name: 'greet', description: undefined, inputSchema: input, outputSchema: output, fn });
/** The definition always has a description, a string ('' when none was given). */
export const published: string = withoutDescription.description;

// @ts-expect-error inputSchema is required
export const withoutInputSchema = workflow({ name: 'greet', outputSchema: output, fn });
// @ts-expect-error outputSchema is required
export const withoutOutputSchema = workflow({ name: 'greet', inputSchema: input, fn });
// @ts-expect-error a description is a string
export const numericDescription = workflow({ name: 'greet', description: 42, inputSchema: input, outputSchema: output, fn });
