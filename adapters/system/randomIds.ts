import { randomUUID } from 'node:crypto';
import type { IdGenerator } from '../../ports/ids.js';

/** UUID v4 ids from the platform's CSPRNG. */
export const randomIds: IdGenerator = Object.freeze({ uuid: () => randomUUID() });
