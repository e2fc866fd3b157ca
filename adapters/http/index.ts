/** The HTTP adapter: turns HTTP requests into FlowgateApi calls. */
export { createHttpApp, type HttpApp } from './app.js';
export { HTTP_APP_DEFAULTS, type HttpAppOptions } from './options.js';
export { createNodeHandler, toNodeHandler, type NodeRequestHandler, type NodeTransportOptions } from './node.js';
export { createFetchHandler, toFetchHandler, type FetchHandler } from './fetch.js';
export { startHttpServer, HTTP_SERVER_DEFAULTS, type HttpServerOptions, type HttpServerSettings, type RunningHttpServer } from './server.js';
export type { HttpRequest, HttpResponse, HttpHandler, RequestHeaders } from './types.js';
export { buildOpenApiDocument, API_DESCRIPTION_VERSION, type OpenApiDocument } from './openapi.js';
export { ERROR_RULES, answerError, type ErrorRule, type ErrorBody } from './errorTable.js';
/** The errors only the HTTP adapter throws (their names are in ERROR_RULES with the core's). */
export * from './transportErrors.js';
export { DEPRECATED_ENDPOINT_SUNSET } from './routes.js';
/** The request and response schemas the OpenAPI document is generated from, for contract tests. */
export * as httpSchemas from './schemas/index.js';
