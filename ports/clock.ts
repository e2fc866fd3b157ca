import { token } from './token.js';

export interface Clock {
  /** Epoch milliseconds. */
  now(): number;
  /** Calls `callback` after `ms`; returns the function that cancels it. */
  setTimer(ms: number, callback: () => void): () => void;
}

export const CLOCK = token<Clock>('Clock');
