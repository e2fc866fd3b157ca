import { token } from './token.js';

export interface IdGenerator {
  /** A random UUID v4. */
  uuid(): string;
}

export const ID_GENERATOR = token<IdGenerator>('IdGenerator');
