/** flowgate/embed: the API inside your own server (docs/embedding.md). */
export { createFlowgate, type CreateFlowgateOptions, type Flowgate, type StepReplacement } from './createFlowgate.js';
export type { FlowgateParts } from '../container.js';
export type { EnvInput } from '../config.js';
export { MissingPackageError } from '../optionalPackages.js';
export type { FlowgateApi } from '../../core/api/flowgateApi.js';
export type * from '../../core/api/views.js';
export type * from '../../core/api/requests.js';
export type { NodeRequestHandler, FetchHandler, OpenApiDocument } from '../../adapters/http/index.js';
export { AccessKeyFileError, type KeyFileEntry } from '../../adapters/access/keyFile.js';
// What createFlowgate rejects with on a data directory it cannot use (docs/embedding.md).
export { DataDirectoryError, DataDirectoryInUseError } from '../../adapters/embedded/store/sqlite/dataDirErrors.js';
export type { AccessKey, Scope } from '../../core/domain/access.js';
