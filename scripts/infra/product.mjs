// What `flowgate dev` needs of this infrastructure ships with the product, in adapters/temporal/devServer (the dev
// server's command line, launching and stopping it, free ports, child processes that die with their parent): the
// scripts reuse that code rather than keep a copy. They run before any build, so they load its TypeScript sources
// through tsx (a dependency), scoped to this import rather than registered for the whole process.
import { tsImport } from 'tsx/esm/api';

/** @type {typeof import('../../adapters/temporal/devServer/index.ts')} */
export const devServer = await tsImport('../../adapters/temporal/devServer/index.ts', import.meta.url);
