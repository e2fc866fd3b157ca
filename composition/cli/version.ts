import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** flowgate's version, from the package.json above this file (sources and dist/ sit at different depths). */
export function ownVersion(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'flowgate' && manifest.version) return manifest.version;
    } catch {
      // no package.json here: keep walking up
    }
    if (dirname(dir) === dir) return 'unknown';
  }
}
