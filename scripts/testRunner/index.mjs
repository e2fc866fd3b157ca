// The pieces of `npm test` (scripts/test.mjs). Types for TypeScript callers: index.d.mts.
export * from './summary.mjs';
export { killRunningSuites, runSuiteProcess } from './runSuiteProcess.mjs';
export * from './schedule.mjs';
export { testFilesOf } from './testFiles.mjs';
