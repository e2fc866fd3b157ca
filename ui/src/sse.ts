/** The history stream's parser is the typed client's (adapters/client): one parser for both clients of the API. */
export { SseParser, type SseEvent } from '../../adapters/client/sseParser.js';
