import { z } from 'zod';
import { workflow } from '../../core/definition/index.js';
import { fetchFromUpstream } from '../steps/unreliable.js';

/** Fails in its step: the result is 200 with status `failed` and the step's error (activityType `unreliable#fetch_from_upstream`). */
export default workflow({
  name: 'unreliable',
  description: 'Calls an upstream that is always down; ends failed',
  inputSchema: z.object({ resource: z.string() }).strict(),
  outputSchema: z.unknown(),
  fn: async ({ resource }) => fetchFromUpstream({ resource }),
});
