import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** An API key a test holds: its secret, and the entry API_KEYS_FILE lists for it (docs/security.md). */
export interface TestKey {
  secret: string;
  entry: { id: string; sha256: string; scopes: string[]; catalogs?: string[]; workflows?: string[]; expiresAt?: string };
  headers: { authorization: string };
}

export function testKey(id: string, scopes: string[], limits: { catalogs?: string[]; workflows?: string[]; expiresAt?: string } = {}): TestKey {
  const secret = `fgk_test-${id}-${Math.random().toString(36).slice(2)}`;
  return {
    secret,
    entry: { id, sha256: createHash('sha256').update(secret).digest('hex'), scopes, ...limits },
    headers: { authorization: `Bearer ${secret}` },
  };
}

/** A key file in a directory of its own, rewritten as editors do (a new file renamed over the old one). */
export class TestKeyFile {
  readonly dir = mkdtempSync(join(tmpdir(), 'flowgate-keys-'));
  readonly path = join(this.dir, 'keys.json');

  constructor(keys: readonly TestKey[]) {
    this.write(keys);
  }

  write(keys: readonly TestKey[]): void {
    this.writeText(JSON.stringify({ keys: keys.map((key) => key.entry) }, null, 2));
  }

  writeText(text: string): void {
    const next = join(this.dir, `.keys.json.${process.pid}.tmp`);
    writeFileSync(next, text);
    renameSync(next, this.path);
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
