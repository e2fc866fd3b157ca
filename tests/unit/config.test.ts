import { parseWorkerConfig } from '../../composition/workerConfig.js';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig, ConfigError } from '../../composition/config.js';

test('defaults follow the README\'s configuration table', () => {
  const config = parseConfig({});
  assert.is(config.listener.host, '127.0.0.1');
  assert.is(config.listener.port, 3001);
  assert.is(config.defaultCatalog, 'main');
  assert.is(config.maxResultBytes, 33554432);
  assert.is(config.http.maxBodyBytes, 2097152);
  assert.is(config.http.runTimeoutMaxSeconds, 3600);
  assert.is(config.traceDir, './traces');
  assert.is(config.http.deprecatedEndpoints, true);
  assert.is(config.authToken, undefined);
});

test('every bad variable is reported on its own line', () => {
  try {
    parseConfig({ PORT: 'eighty', DEPRECATED_ENDPOINTS: 'maybe', MAX_BODY_BYTES: '-1' });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ConfigError);
    const problems = (error as ConfigError).problems;
    assert.is(problems.length, 3);
    assert.ok(problems.some((line) => line.startsWith('PORT:') && line.endsWith('(got "eighty")')), problems.join('\n'));
    assert.ok(problems.some((line) => line.startsWith('DEPRECATED_ENDPOINTS:')));
    assert.ok(problems.some((line) => line.startsWith('MAX_BODY_BYTES:')));
  }
});

test('number variables: decimal only, and never empty (coercion read an emptied PORT or METRICS_PORT as 0: a random port)', () => {
  const problemOf = (env: Record<string, string>) => {
    try {
      parseConfig(env);
    } catch (error) {
      return (error as ConfigError).problems.join('\n');
    }
    return 'accepted';
  };
  assert.is(problemOf({ PORT: '' }), 'PORT: is empty: leave it unset for its default (got "")');
  assert.is(problemOf({ METRICS_PORT: ' ' }), 'METRICS_PORT: is empty: leave it unset for its default (got " ")');
  assert.is(problemOf({ SHUTDOWN_GRACE_MS: '' }), 'SHUTDOWN_GRACE_MS: is empty: leave it unset for its default (got "")');
  assert.is(problemOf({ PORT: '0x50' }), 'PORT: must be a decimal number (got "0x50")');
  assert.is(problemOf({ PORT: '8e1' }), 'PORT: must be a decimal number (got "8e1")');
  assert.match(problemOf({ SHUTDOWN_GRACE_MS: '99999999999' }), /^SHUTDOWN_GRACE_MS: Too big/, 'past what a timer can wait');
  assert.match(problemOf({ CLAIM_CHECK_THRESHOLD_BYTES: '' }), /^CLAIM_CHECK_THRESHOLD_BYTES: is empty/);
  const config = parseConfig({ PORT: ' 8080 ', RUN_RETENTION_DAYS: '0.5', SHUTDOWN_GRACE_MS: '0' });
  assert.is(config.listener.port, 8080);
});

test('a bad value is repeated in its line, unless the variable may hold a secret', () => {
  const problems = (() => {
    try {
      parseConfig({ API_AUTH_TOKEN: 'short', TRACE_S3_SECRET_ACCESS_KEY: 'x'.repeat(5000), PORT: '3001' } as never);
    } catch (error) {
      return (error as ConfigError).problems;
    }
    return [];
  })();
  assert.not.ok(problems.join('\n').includes('short'), problems.join('\n'));
});

test('limits: defaults, overrides, and a headers timeout above the request timeout refused', () => {
  const limitsOf = ({ http, listener }: ReturnType<typeof parseConfig>) => ({
    maxConnections: listener.maxConnections,
    maxEventStreams: http.maxEventStreams,
    maxJsonDepth: http.maxJsonDepth,
    headersTimeoutMs: listener.headersTimeoutMs,
    requestTimeoutMs: listener.requestTimeoutMs,
    maxPipelinedRequests: listener.maxPipelinedRequests,
  });
  assert.equal(limitsOf(parseConfig({})), { maxConnections: 10_000, maxEventStreams: 10_000, maxJsonDepth: 100, headersTimeoutMs: 30_000, requestTimeoutMs: 60_000, maxPipelinedRequests: 8 });
  assert.equal(
    limitsOf(parseConfig({ MAX_CONNECTIONS: '50', MAX_EVENT_STREAMS: '5', MAX_JSON_DEPTH: '10', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000', MAX_PIPELINED_REQUESTS: '2' })),
    { maxConnections: 50, maxEventStreams: 5, maxJsonDepth: 10, headersTimeoutMs: 1000, requestTimeoutMs: 2000, maxPipelinedRequests: 2 },
  );
  assert.throws(() => parseConfig({ HEADERS_TIMEOUT_MS: '70000' }), (error: unknown) =>
    (error as ConfigError).problems.some((line) => line === 'HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS'));
  assert.throws(() => parseConfig({ MAX_CONNECTIONS: '0' }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith('MAX_CONNECTIONS:'));
});

test('the embedded engine\'s memory limits: defaults, overrides, and a bad value named', () => {
  const defaults = parseConfig({});
  const limits = (config: typeof defaults) => [config.memoryMaxClosedRuns, config.memoryMaxClosedBytes, config.memoryMaxHistoryBytes, config.memoryMaxIdempotencyBytes];
  assert.equal(limits(defaults), [10_000, 256 * 1024 * 1024, 50 * 1024 * 1024, 64 * 1024 * 1024]);
  const set = parseConfig({ MEMORY_MAX_CLOSED_RUNS: '3', MEMORY_MAX_CLOSED_BYTES: '1000000', MEMORY_MAX_HISTORY_BYTES: '5000', MEMORY_MAX_IDEMPOTENCY_BYTES: '7000' });
  assert.equal(limits(set), [3, 1_000_000, 5000, 7000]);
  for (const name of ['MEMORY_MAX_CLOSED_BYTES', 'MEMORY_MAX_HISTORY_BYTES', 'MEMORY_MAX_IDEMPOTENCY_BYTES']) {
    assert.throws(() => parseConfig({ [name]: '0' }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith(`${name}:`));
  }
});

test('HISTORY_PAGE_MAX_BYTES: 1 MiB by default, set, and a bad value named', () => {
  assert.is(parseConfig({}).historyPageMaxBytes, 1024 * 1024);
  assert.is(parseConfig({ HISTORY_PAGE_MAX_BYTES: '262144' }).historyPageMaxBytes, 262_144);
  for (const value of ['0', '-1', '1.5', 'lots']) {
    assert.throws(() => parseConfig({ HISTORY_PAGE_MAX_BYTES: value }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith('HISTORY_PAGE_MAX_BYTES:'));
  }
});

test('production refuses to start without a token', () => {
  assert.throws(() => parseConfig({ NODE_ENV: 'production' }), /API_AUTH_TOKEN: must be set/);
  assert.is(parseConfig({ NODE_ENV: 'production', API_AUTH_TOKEN: 's3cret' }).authToken, 's3cret');
});

test('an empty or blank API_AUTH_TOKEN is a configuration error, one line; unset means no authentication', () => {
  for (const token of ['', '   ', '\t\n']) {
    assert.throws(() => parseConfig({ API_AUTH_TOKEN: token }), (error: unknown) => {
      const problems = (error as ConfigError).problems;
      return problems.length === 1 && /^API_AUTH_TOKEN: is empty; set a token, or leave the variable unset to run without authentication/.test(problems[0]!);
    }, JSON.stringify(token));
  }
  // One line also in production, where an unset token is refused on its own.
  assert.throws(() => parseConfig({ NODE_ENV: 'production', API_AUTH_TOKEN: '' }), (error: unknown) =>
    (error as ConfigError).problems.length === 1 && (error as ConfigError).problems[0]!.startsWith('API_AUTH_TOKEN: is empty'));
  assert.throws(() => parseConfig({ API_AUTH_TOKEN: 'two words' }), (error: unknown) =>
    (error as ConfigError).problems[0] === 'API_AUTH_TOKEN: must not contain whitespace (a bearer token is one word)');
  assert.not.match(String((() => { try { parseConfig({ API_AUTH_TOKEN: 'se cret' }); } catch (error) { return (error as Error).message; } })()), /se cret/, 'the token is never echoed');
  assert.is(parseConfig({}).authToken, undefined);
  assert.is(parseConfig({ API_AUTH_TOKEN: 's3cret' }).authToken, 's3cret');
});

test('boolean variables of the API server and the worker take on/off, true/false, 1/0, yes/no in any case', async () => {
  const { parseWorkerConfig } = await import('../../composition/workerConfig.js');
  const truthy = ['on', 'ON', 'true', 'True', '1', 'yes', 'YES', ' on '];
  const falsy = ['off', 'Off', 'false', 'FALSE', '0', 'no', 'No'];
  const temporal = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
  const s3 = { TRACE_S3_BUCKET: 'traces', S3_ENDPOINT: 'http://127.0.0.1:7070' };
  for (const [spellings, value] of [[truthy, true], [falsy, false]] as const) {
    for (const spelling of spellings) {
      assert.is(parseConfig({ DEPRECATED_ENDPOINTS: spelling }).http.deprecatedEndpoints, value, `DEPRECATED_ENDPOINTS=${spelling}`);
      assert.is(parseConfig({ ...temporal, TEMPORAL_TLS: spelling }).temporal?.tls, value, `TEMPORAL_TLS=${spelling}`);
      assert.is(parseWorkerConfig({ ...temporal, TEMPORAL_TLS: spelling }).temporal.tls, value, `worker TEMPORAL_TLS=${spelling}`);
      assert.is(parseConfig({ ...s3, S3_FORCE_PATH_STYLE: spelling }).remoteTraces?.forcePathStyle, value, `S3_FORCE_PATH_STYLE=${spelling}`);
      assert.is(parseWorkerConfig({ ...temporal, ...s3, S3_FORCE_PATH_STYLE: spelling }).remoteTraces?.forcePathStyle, value, `worker S3_FORCE_PATH_STYLE=${spelling}`);
    }
  }
  // Unset keeps each default: deprecated endpoints on, TLS decided by the connection, path style on with an endpoint.
  assert.is(parseConfig({}).http.deprecatedEndpoints, true);
  assert.is(parseConfig(temporal).temporal?.tls, undefined);
  assert.is(parseConfig(s3).remoteTraces?.forcePathStyle, true);
  assert.is(parseConfig({ TRACE_S3_BUCKET: 'traces' }).remoteTraces?.forcePathStyle, false);
  const accepted = 'must be one of on/off, true/false, 1/0, yes/no (any case)';
  for (const bad of ['maybe', '', 'y', '2', 'enabled']) {
    assert.equal(problemsOf(() => parseConfig({ ...s3, DEPRECATED_ENDPOINTS: bad, TEMPORAL_TLS: bad, S3_FORCE_PATH_STYLE: bad })), [
      `TEMPORAL_TLS: ${accepted}, got ${JSON.stringify(bad)}`,
      `DEPRECATED_ENDPOINTS: ${accepted}, got ${JSON.stringify(bad)}`,
      `S3_FORCE_PATH_STYLE: ${accepted}, got ${JSON.stringify(bad)}`,
    ].sort());
    assert.equal(problemsOf(() => parseWorkerConfig({ ...temporal, ...s3, TEMPORAL_TLS: bad, S3_FORCE_PATH_STYLE: bad })), [
      `S3_FORCE_PATH_STYLE: ${accepted}, got ${JSON.stringify(bad)}`,
      `TEMPORAL_TLS: ${accepted}, got ${JSON.stringify(bad)}`,
    ]);
  }
});

test('TEMPORAL_GRPC_TRANSPORT: http2 by default, grpc-js when a proxy variable is set (only grpc-js goes through one) or when asked; anything else refused', async () => {
  const { parseWorkerConfig } = await import('../../composition/workerConfig.js');
  const temporal = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
  assert.is(parseConfig(temporal).temporal?.transport, 'http2');
  assert.is(parseWorkerConfig(temporal).temporal.transport, 'http2');
  for (const proxy of ['grpc_proxy', 'https_proxy', 'http_proxy']) {
    assert.is(parseConfig({ ...temporal, [proxy]: 'http://127.0.0.1:3128' }).temporal?.transport, 'grpc-js', proxy);
    assert.is(parseWorkerConfig({ ...temporal, [proxy]: 'http://127.0.0.1:3128' }).temporal.transport, 'grpc-js', `worker ${proxy}`);
  }
  assert.is(parseConfig({ ...temporal, https_proxy: '' }).temporal?.transport, 'http2', 'an empty proxy variable is unset');
  assert.is(parseConfig({ ...temporal, https_proxy: 'http://127.0.0.1:3128', TEMPORAL_GRPC_TRANSPORT: 'http2' }).temporal?.transport, 'http2');
  assert.is(parseConfig({ ...temporal, TEMPORAL_GRPC_TRANSPORT: 'grpc-js' }).temporal?.transport, 'grpc-js');
  assert.equal(problemsOf(() => parseConfig({ ...temporal, TEMPORAL_GRPC_TRANSPORT: 'grpc' })), [
    'TEMPORAL_GRPC_TRANSPORT: Invalid option: expected one of "http2"|"grpc-js" (got "grpc")',
  ]);
});

function problemsOf(parse: () => unknown): string[] {
  try {
    parse();
  } catch (error) {
    assert.instance(error, ConfigError);
    return [...(error as ConfigError).problems].sort();
  }
  assert.unreachable('the configuration was accepted');
  return [];
}

test('the engine is temporal when TEMPORAL_ADDRESS is set, unless ENGINE says otherwise; else the durable embedded engine', () => {
  assert.is(parseConfig({}).engine, 'embedded');
  assert.is(parseConfig({ ENGINE: 'memory' }).engine, 'memory');
  const temporal = parseConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_TLS: 'on', TEMPORAL_API_KEY: 'k' });
  assert.is(temporal.engine, 'temporal');
  assert.equal(temporal.temporal, { address: '127.0.0.1:7233', namespace: 'default', apiKey: 'k', tls: true, transport: 'http2' });
  assert.is(parseConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', ENGINE: 'memory' }).engine, 'memory');
  assert.throws(() => parseConfig({ ENGINE: 'temporal' }), /TEMPORAL_ADDRESS: must be set when ENGINE=temporal/);
  assert.throws(() => parseConfig({ ENGINE: 'cassandra' }), /ENGINE:/);
  assert.throws(() => parseConfig({ PAGE_TOKEN_SECRET: 'short' }), /PAGE_TOKEN_SECRET: must be at least 16 characters/);
  assert.is(parseConfig({ PAGE_TOKEN_SECRET: 'a-secret-of-16-chars' }).pageTokenSecret, 'a-secret-of-16-chars');
});

test('DATA_DIR: .flowgate in the project directory unless given, resolved against it; DATA_SYNC full unless normal; RUN_RETENTION_DAYS 30', () => {
  const defaults = parseConfig({ PROJECT_DIR: '/srv/flows' });
  assert.is(defaults.dataDir, '/srv/flows/.flowgate');
  assert.is(defaults.dataSync, 'full');
  assert.is(defaults.runRetentionMs, 30 * 24 * 3600 * 1000);
  assert.is(parseConfig({ PROJECT_DIR: '/srv/flows', DATA_DIR: 'state' }).dataDir, '/srv/flows/state');
  assert.is(parseConfig({ DATA_DIR: '/var/lib/flowgate' }).dataDir, '/var/lib/flowgate');
  assert.is(parseConfig({ DATA_SYNC: 'normal' }).dataSync, 'normal');
  assert.is(parseConfig({ RUN_RETENTION_DAYS: '0.5' }).runRetentionMs, 12 * 3600 * 1000);
  assert.throws(() => parseConfig({ DATA_SYNC: 'sometimes' }), /DATA_SYNC:/);
  assert.throws(() => parseConfig({ RUN_RETENTION_DAYS: '0' }), /RUN_RETENTION_DAYS:/);
  assert.throws(() => parseConfig({ DATA_DIR: '' }), /DATA_DIR:/);
});

test('OUTBOUND_ALLOW_PUBLIC: on by default; off makes the allow-list the only way out, on the API server and the worker', async () => {
  const { parseWorkerConfig } = await import('../../composition/workerConfig.js');
  const worker = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
  assert.is(parseConfig({}).outboundAllowlist.listedOnly, undefined);
  assert.is(parseWorkerConfig(worker).outboundAllowlist.listedOnly, undefined);
  const off = { OUTBOUND_ALLOW_PUBLIC: 'off', OUTBOUND_ALLOWLIST: '127.0.0.1' };
  for (const allowlist of [parseConfig(off).outboundAllowlist, parseWorkerConfig({ ...worker, ...off }).outboundAllowlist]) {
    assert.is(allowlist.listedOnly, true);
    assert.equal(allowlist.entries, ['127.0.0.1']);
  }
  assert.throws(() => parseConfig({ OUTBOUND_ALLOW_PUBLIC: 'never' }), /OUTBOUND_ALLOW_PUBLIC: must be one of on\/off/);
});

test('OUTBOUND_ALLOWLIST: none by default; hosts and networks on the API server and the worker; a bad entry named', async () => {
  const { parseWorkerConfig } = await import('../../composition/workerConfig.js');
  const worker = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
  assert.equal(parseConfig({}).outboundAllowlist.entries, []);
  assert.equal(parseWorkerConfig(worker).outboundAllowlist.entries, []);
  const set = { OUTBOUND_ALLOWLIST: '127.0.0.0/8, ::1,receiver.internal' };
  for (const allowlist of [parseConfig(set).outboundAllowlist, parseWorkerConfig({ ...worker, ...set }).outboundAllowlist]) {
    assert.equal(allowlist.entries, ['127.0.0.0/8', '::1', 'receiver.internal']);
    assert.equal([...allowlist.hosts], ['receiver.internal']);
    assert.equal(allowlist.networks.map((network) => network.text), ['127.0.0.0/8', '::1/128']);
  }
  const bad = { OUTBOUND_ALLOWLIST: '10.0.0.1/8,ok.example,no such host' };
  for (const parse of [() => parseConfig(bad), () => parseWorkerConfig({ ...worker, ...bad })]) {
    assert.throws(parse, (error: unknown) =>
      (error as ConfigError).problems.join('\n') ===
      ['OUTBOUND_ALLOWLIST: "10.0.0.1/8" has bits set after its /8 prefix (did you mean 10.0.0.0/8?)', 'OUTBOUND_ALLOWLIST: "no such host" is not a host name, a .domain, an IP address or a CIDR network'].join('\n'));
  }
});

test('large payloads: claim-check threshold and Temporal payload limit, the same on the API server and the worker', async () => {
  const { parseWorkerConfig } = await import('../../composition/workerConfig.js');
  const defaults = { claimCheckThresholdBytes: 262_144, temporalMaxPayloadBytes: 2_000_000 };
  assert.equal(parseConfig({}).payloads, defaults);
  assert.equal(parseWorkerConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233' }).payloads, defaults);
  const set = { CLAIM_CHECK_THRESHOLD_BYTES: '1024', TEMPORAL_MAX_PAYLOAD_BYTES: '4000000' };
  assert.equal(parseConfig(set).payloads, { claimCheckThresholdBytes: 1024, temporalMaxPayloadBytes: 4_000_000 });
  assert.equal(parseWorkerConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', ...set }).payloads, { claimCheckThresholdBytes: 1024, temporalMaxPayloadBytes: 4_000_000 });
  for (const bad of [{ CLAIM_CHECK_THRESHOLD_BYTES: '0' }, { TEMPORAL_MAX_PAYLOAD_BYTES: 'lots' }]) {
    const name = Object.keys(bad)[0]!;
    assert.throws(() => parseConfig(bad), (error: unknown) => (error as ConfigError).problems.some((line) => line.startsWith(`${name}:`)));
    assert.throws(() => parseWorkerConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', ...bad }), (error: unknown) =>
      (error as ConfigError).problems.some((line) => line.startsWith(`${name}:`)));
  }
});

test('UI: the browser UI is on unless UI is off (any boolean spelling); anything else is refused', () => {
  assert.is(parseConfig({}).http.ui, true);
  assert.is(parseConfig({ UI: 'on' }).http.ui, true);
  assert.is(parseConfig({ UI: 'off' }).http.ui, false);
  assert.is(parseConfig({ UI: 'No' }).http.ui, false);
  assert.throws(() => parseConfig({ UI: 'maybe' }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith('UI:'));
});

test('COMPRESSION: large answers are compressed unless COMPRESSION is off; the HTTP app is given the switch', () => {
  assert.is(parseConfig({}).http.compression, true);
  assert.is(parseConfig({ COMPRESSION: 'off' }).http.compression, false);
  assert.is(parseConfig({ COMPRESSION: 'false' }).http.compression, false);
  assert.throws(() => parseConfig({ COMPRESSION: 'gzip' }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith('COMPRESSION:'));
});

test('OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on, with OTEL_SERVICE_NAME or flowgate; unset or empty it is off', () => {
  assert.is(parseConfig({}).tracing, undefined);
  assert.is(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '' }).tracing, undefined);
  assert.equal(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing, { endpoint: 'http://127.0.0.1:4318', serviceName: 'flowgate' });
  assert.equal(parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example:4318/', OTEL_SERVICE_NAME: 'api-eu' }).tracing, {
    endpoint: 'https://otel.example:4318/',
    serviceName: 'api-eu',
  });
  try {
    parseConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: '127.0.0.1:4318' });
    assert.unreachable('an endpoint without a scheme is refused');
  } catch (error) {
    assert.instance(error, ConfigError);
    assert.match((error as ConfigError).problems.join('\n'), /OTEL_EXPORTER_OTLP_ENDPOINT: must be an http\(s\) URL/);
  }
});

test('metrics: on by default without a port of their own; METRICS_PORT needs METRICS on', () => {
  assert.equal(parseConfig({}).metrics, { enabled: true, port: undefined });
  assert.equal(parseConfig({ METRICS: 'off' }).metrics, { enabled: false, port: undefined });
  assert.equal(parseConfig({ METRICS_PORT: '9464' }).metrics, { enabled: true, port: 9464 });
  assert.throws(() => parseConfig({ METRICS: 'off', METRICS_PORT: '9464' }), (error: unknown) =>
    (error as ConfigError).problems.some((line) => line.startsWith('METRICS_PORT:')));
  assert.throws(() => parseConfig({ METRICS: 'maybe' }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith('METRICS:'));
  const worker = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
  assert.equal(parseWorkerConfig({ ...worker, METRICS_PORT: '9464' }).metrics, { enabled: true, port: 9464 });
  assert.throws(() => parseWorkerConfig({ ...worker, METRICS: 'off', METRICS_PORT: '9464' }), (error: unknown) =>
    (error as ConfigError).problems.some((line) => line.startsWith('METRICS_PORT:')), 'a worker refuses it too');
});

test('WEBHOOK_SIGNING_SECRET: a whsec_ secret, or two while rotating; WEBHOOK_LEGACY_SIGNATURE adds the old headers', () => {
  const first = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const second = `whsec_${Buffer.alloc(24, 2).toString('base64')}`;
  assert.is(parseConfig({}).webhookSigning, undefined);
  assert.equal(parseConfig({ WEBHOOK_SIGNING_SECRET: first }).webhookSigning, { secrets: [first], legacyHeaders: false });
  assert.equal(parseConfig({ WEBHOOK_SIGNING_SECRET: ` ${first}  ${second} ` }).webhookSigning, { secrets: [first, second], legacyHeaders: false });
  assert.equal(parseConfig({ WEBHOOK_SIGNING_SECRET: first, WEBHOOK_LEGACY_SIGNATURE: 'on' }).webhookSigning, { secrets: [first], legacyHeaders: true });
  const worker = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
  assert.equal(parseWorkerConfig({ ...worker, WEBHOOK_SIGNING_SECRET: first, WEBHOOK_LEGACY_SIGNATURE: 'yes' }).webhookSigning, { secrets: [first], legacyHeaders: true });
});

test('a malformed WEBHOOK_SIGNING_SECRET refuses the start: one line naming the variable and the expected form, never the secret', () => {
  const valid = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  const refused: [string, RegExp][] = [
    ['', /^WEBHOOK_SIGNING_SECRET: is empty; set a whsec_ secret, or leave the variable unset/],
    ['   ', /^WEBHOOK_SIGNING_SECRET: is empty/],
    ['an-old-raw-secret-of-32-characters', /^WEBHOOK_SIGNING_SECRET: must be a Standard Webhooks secret, whsec_ followed by the base64 of 24 to 64 random bytes/],
    ['whsec_not*base64*at*all*not*base64*at*all*', /^WEBHOOK_SIGNING_SECRET: is not whsec_ followed by .*: what follows whsec_ is not padded base64$/],
    [`whsec_${Buffer.alloc(8, 1).toString('base64')}`, /^WEBHOOK_SIGNING_SECRET: is not whsec_ followed by .*: its key has 8 bytes$/],
    [`${valid} an-old-raw-secret`, /^WEBHOOK_SIGNING_SECRET: its second secret must be a Standard Webhooks secret/],
    [`${valid} ${valid}`, /^WEBHOOK_SIGNING_SECRET: holds the same secret twice$/],
    [`${valid} ${valid.replace('AQ', 'Ag')} ${valid.replace('AQ', 'Aw')}`, /^WEBHOOK_SIGNING_SECRET: holds 3 secrets; give one, or two/],
  ];
  for (const [secret, expected] of refused) {
    for (const parse of [parseConfig, (env: Record<string, string>) => parseWorkerConfig({ ...env, TEMPORAL_ADDRESS: '127.0.0.1:7233' })]) {
      try {
        parse({ WEBHOOK_SIGNING_SECRET: secret });
        assert.unreachable(`${JSON.stringify(secret)} is refused`);
      } catch (error) {
        assert.instance(error, ConfigError);
        const problems = (error as ConfigError).problems;
        assert.is(problems.length, 1, problems.join('\n'));
        assert.match(problems[0]!, expected);
        assert.not.ok(problems[0]!.includes('raw-secret') || problems[0]!.includes(valid.slice(6)), 'the secret is not echoed');
      }
    }
  }
});

test('WEBHOOK_LEGACY_SIGNATURE: off by default, a boolean, and refused without a secret to sign with', () => {
  const secret = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
  assert.is(parseConfig({ WEBHOOK_SIGNING_SECRET: secret, WEBHOOK_LEGACY_SIGNATURE: 'off' }).webhookSigning?.legacyHeaders, false);
  assert.throws(() => parseConfig({ WEBHOOK_SIGNING_SECRET: secret, WEBHOOK_LEGACY_SIGNATURE: 'sometimes' }), (error: unknown) =>
    (error as ConfigError).problems[0]!.startsWith('WEBHOOK_LEGACY_SIGNATURE: must be one of on/off'));
  const withoutSecret = 'WEBHOOK_LEGACY_SIGNATURE: adds signature headers, which need WEBHOOK_SIGNING_SECRET; set both, or neither';
  assert.throws(() => parseConfig({ WEBHOOK_LEGACY_SIGNATURE: 'on' }), (error: unknown) => (error as ConfigError).problems.join('\n') === withoutSecret);
  assert.throws(() => parseWorkerConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', WEBHOOK_LEGACY_SIGNATURE: 'on' }), (error: unknown) =>
    (error as ConfigError).problems.join('\n') === withoutSecret, 'a worker refuses it too');
});

test.run();
