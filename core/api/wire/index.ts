export * from './common.js';
export * from './results.js';
export * from './runs.js';
export * from './operations.js';
export * from './requests.js';
export * from './schedules.js';
