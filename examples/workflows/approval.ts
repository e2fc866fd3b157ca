import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';

/**
 * Waits for a human: optionally notifies `notifyUrl` (a signed POST), then waits for
 * POST /workflow/feedback {workflowId, payload: {approved, comment?}}; any other payload is refused (400).
 */
export default workflow({
  name: 'approval',
  description: 'Waits for an approval sent through POST /workflow/feedback',
  inputSchema: z
    .object({ request: z.string(), notifyUrl: z.url().optional(), timeoutSeconds: z.number().positive().optional() })
    .strict(),
  outputSchema: z.object({ request: z.string(), approved: z.boolean(), comment: z.string().nullable() }),
  feedbackSchema: z.object({ approved: z.boolean(), comment: z.string().optional() }),
  fn: async ({ request, notifyUrl, timeoutSeconds }, ctx) => {
    const answer = await ctx.waitForWebhook({
      ...(notifyUrl ? { url: notifyUrl } : {}),
      payload: { request },
      ...(timeoutSeconds ? { timeoutMs: timeoutSeconds * 1000 } : {}),
    });
    return { request, approved: answer.approved, comment: answer.comment ?? null };
  },
});
