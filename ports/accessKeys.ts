import type { AccessKey } from '../core/domain/access.js';

/** The API keys requests authenticate with (docs/security.md): API_KEYS_FILE, API_AUTH_TOKEN, or keys an embedder gives. */
export interface AccessKeyRegistry {
  /**
   * The key whose secret was presented, when it is one and has not expired. Takes the same time whichever key
   * matches, or none: the secret is compared with every key's, in constant time.
   */
  lookup(secret: string): AccessKey | undefined;
}
