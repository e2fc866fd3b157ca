// Small file checks shared by the tool installers (Temporal CLI, versitygw, schemathesis).
import { accessSync, constants, statSync } from 'node:fs';

/** @param {string} path */
export function isExecutableFile(path) {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
