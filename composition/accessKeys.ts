import type { AccessKeyRegistry } from '../ports/accessKeys.js';
import type { Logger } from '../ports/logger.js';
import { parseKeyEntries, type KeyFileEntry } from '../adapters/access/keyFile.js';
import { KeyFileRegistry, type ReloadOutcome } from '../adapters/access/keyFileRegistry.js';
import { authTokenKey, KeyTable, type ReservedKey } from '../adapters/access/keyTable.js';
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
 * API_AUTH_TOKEN (the key `token`, every scope), the entries an embedding gives, and API_KEYS_FILE (watched), as one
 * table: no two of them share an id or a secret (ids name who did what), and a reload of the file keeps the others.
 * A key file or entries that cannot be used throw AccessKeyFileError: the server does not start with them.
 */
export async function openAccessKeys(config: Pick<FlowgateConfig, 'authToken' | 'apiKeysFile'>, entries: readonly KeyFileEntry[] | undefined, logger: Logger): Promise<AccessKeys> {
  const token = config.authToken === undefined ? [] : [authTokenKey(config.authToken)];
  const given: ReservedKey[] = (entries === undefined ? [] : parseKeyEntries(entries, { source: GIVEN_KEYS, reserved: token })).map((hashed, index) => ({
    ...hashed,
    source: `${GIVEN_KEYS}[${index}]`,
  }));
  const reserved = [...token, ...given];
  const file = config.apiKeysFile === undefined ? undefined : await KeyFileRegistry.open({ path: config.apiKeysFile, reserved, logger });
  return {
    registry: file ?? (reserved.length === 0 ? undefined : new KeyTable(reserved)),
    reload: async () => file?.reload('signal'),
    close: () => file?.close(),
  };
}

const GIVEN_KEYS = 'createFlowgate apiKeys';
