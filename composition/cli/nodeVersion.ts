/**
 * The oldest Node.js the package runs on, as package.json's `engines.node` says it (a unit test holds the two
 * together): 22.13 is the first release with `node:sqlite` built in without a flag.
 */
export const MINIMUM_NODE_VERSION = '22.13';

/** The one line `flowgate` prints instead of running on an older Node; undefined when `found` is recent enough. */
export function unsupportedNodeMessage(found: string): string | undefined {
  const [major = 0, minor = 0] = found.split('.').map(Number);
  const [neededMajor = 0, neededMinor = 0] = MINIMUM_NODE_VERSION.split('.').map(Number);
  if (major > neededMajor || (major === neededMajor && minor >= neededMinor)) return undefined;
  return `flowgate needs Node.js ${MINIMUM_NODE_VERSION} or later; this is Node.js ${found}`;
}
