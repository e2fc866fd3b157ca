// The command line of `temporal server start-dev` as flowgate runs it (`flowgate dev`, and the tests). Kept apart from
// the process handling so the flags, and the reason for each, can be read in one place.

const MIB = 1024 * 1024;

/** Dynamic config for the dev server (`--dynamic-config-value KEY=JSON`; sizes in bytes). */
export const DEV_SERVER_DYNAMIC_CONFIG: Readonly<Record<string, boolean | number | string>> = Object.freeze({
  // What the SDK's own test-server launcher sets: Workflow Update on, including the async "accepted" stage.
  'frontend.enableUpdateWorkflowExecution': true,
  'frontend.enableUpdateWorkflowExecutionAsyncAccepted': true,
  // The version check phones home; there is no network here, and it only adds noise.
  'frontend.enableServerVersionCheck': false,
  // Per-payload limit (default 2 MiB error, 512 KiB warn). The worker reads the error limit from DescribeNamespace
  // and enforces it on its own completions too. 64 MiB leaves room for a 32 MiB payload plus its encoding.
  // NOTE: a stock server still refuses any single gRPC request over 4 MiB (grpc-go's server default, which Temporal
  // does not raise and offers no setting for); see scripts/infra/README.md.
  'limit.blobSize.error': 64 * MIB,
  'limit.blobSize.warn': 64 * MIB,
  // Largest single write to persistence (default 4 MiB): the event that carries a 30 MiB result is one write.
  'system.transactionSizeLimit': 256 * MIB,
  // Whole-history limit (default 50 MiB error, 10 MiB warn): input, step results and output of one large run add up
  // (a 30 MiB input echoed back as output is already 60 MiB). The event-count limit (50 Ki) is left alone.
  'limit.historySize.error': 1024 * MIB,
  'limit.historySize.warn': 512 * MIB,
});

export type SearchAttributeType = 'Text' | 'Keyword' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';

/**
 * Custom search attributes registered at start. `FlowgateCatalog` tags runs with their catalog; `FlowgateStartedBy`
 * lets the run list filter by the API key that started a run (`GET /workflow/runs?startedBy=`) with a visibility
 * query; workflow type and status are built in.
 */
export const FLOWGATE_SEARCH_ATTRIBUTES: Readonly<Record<string, SearchAttributeType>> = Object.freeze({
  FlowgateCatalog: 'Keyword',
  FlowgateStartedBy: 'Keyword',
});

export interface DevServerPorts {
  /** gRPC frontend: what clients and workers connect to. */
  port: number;
  /** The frontend's HTTP API; fixed so a restart does not move it. */
  httpPort: number;
  /** Prometheus `/metrics`; fixed for the same reason (the CLI would pick one at random). */
  metricsPort: number;
  /** Only when the web UI is wanted. */
  uiPort?: number | undefined;
}

export interface DevServerArgsOptions {
  ip: string;
  ports: DevServerPorts;
  /** `default` always exists; another name is created at start. */
  namespace: string;
  /** SQLite file that keeps state across restarts; in-memory without it. */
  dbFilename?: string | undefined;
  searchAttributes?: Record<string, string>;
  dynamicConfig?: Record<string, boolean | number | string>;
  logLevel?: string;
}

export function devServerArgs({ ip, ports, namespace, dbFilename, searchAttributes = {}, dynamicConfig = {}, logLevel = 'warn' }: DevServerArgsOptions): string[] {
  const args = ['server', 'start-dev', '--ip', ip, '--port', String(ports.port), '--http-port', String(ports.httpPort)];
  args.push('--metrics-port', String(ports.metricsPort));
  // The UI is a second web server nobody looks at in tests; without --ui-port the CLI would also claim port+1000.
  if (ports.uiPort) args.push('--ui-port', String(ports.uiPort));
  else args.push('--headless');
  // warn keeps a healthy server silent while its stderr still explains a failed start.
  args.push('--log-level', logLevel);
  if (dbFilename) args.push('--db-filename', dbFilename);
  if (namespace !== 'default') args.push('--namespace', namespace);
  for (const [name, type] of Object.entries(searchAttributes)) args.push('--search-attribute', `${name}=${type}`);
  for (const [key, value] of Object.entries({ ...DEV_SERVER_DYNAMIC_CONFIG, ...dynamicConfig })) {
    args.push('--dynamic-config-value', `${key}=${JSON.stringify(value)}`);
  }
  return args;
}
