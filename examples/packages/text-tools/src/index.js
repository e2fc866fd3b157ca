// The package's public entry. flowgate's discovery follows these static re-exports to the workflow files; the
// steps are exported too, for workflows of other projects that want to call them.
export * from './workflows/index.js';
export { countWords, titleCase } from './steps/text.js';
