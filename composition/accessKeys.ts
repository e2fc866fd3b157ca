import type { AccessKeyRegistry } from '../ports/accessKeys.js';
import type { Logger } from '../ports/logger.js';
import { parseKeyEntries, type KeyFileEntry } from '../adapters/access/keyFile.js';
import { KeyFileRegistry, type ReloadOutcome } from '../adapters/access/keyFileRegistry.js';
import { authTokenKey, combinedRegistry, KeyTable } from '../adapters/access/keyTable.js';
import type { FlowgateConfig } from './config.js';

/** The API keys of one composition (docs/security.md): what the HTTP app authenticates with, and their reload. */
export interface AccessKeys {
  /** Undefined: neither keys nor a token are configured, authentication is off. */
  readonly registry: AccessKeyRegistry | undefined;
  /** Reads API_KEYS_FILE again (SIGHUP); undefined without a key file. */
  reload(): Promise<ReloadOutcome | undefined>;
  close(): void;
}

/**
 * API_AUTH_TOKEN (the key `token`, every scope), API_KEYS_FILE (watched), and the entries an embedding gives, as one
 * registry. A key file or entries that cannot be used throw AccessKeyFileError: the server does not start with them.
 */
export async function openAccessKeys(config: Pick<FlowgateConfig, 'authToken' | 'apiKeysFile'>, entries: readonly KeyFileEntry[] | undefined, logger: Logger): Promise<AccessKeys> {
  const token = config.authToken === undefined ? undefined : authTokenKey(config.authToken);
  const registries: AccessKeyRegistry[] = [];
  const file = config.apiKeysFile === undefined ? undefined : await KeyFileRegistry.open({ path: config.apiKeysFile, reserved: token, logger });
  if (file) registries.push(file);
  else if (token) registries.push(new KeyTable([token]));
  if (entries !== undefined) {
    // The file's table holds the token when there is a file; given entries may not reuse its id or secret either.
    registries.push(new KeyTable(parseKeyEntries(entries, { source: 'createFlowgate apiKeys', reserved: token })));
  }
  return {
    registry: registries.length === 0 ? undefined : combinedRegistry(registries),
    reload: async () => file?.reload('signal'),
    close: () => file?.close(),
  };
}
