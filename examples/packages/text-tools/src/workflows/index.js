export { textStats } from './textStats.js';
export { default as headline } from './headline.js';
