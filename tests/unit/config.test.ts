import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseConfig, ConfigError } from '../../composition/config.js';

test('defaults follow the README\'s configuration table', () => {
  const config = parseConfig({});
  assert.is(config.host, '127.0.0.1');
  assert.is(config.port, 3001);
  assert.is(config.defaultCatalog, 'main');
  assert.is(config.maxResultBytes, 33554432);
  assert.is(config.maxBodyBytes, 2097152);
  assert.is(config.runTimeoutMaxSeconds, 3600);
  assert.is(config.traceDir, './traces');
  assert.is(config.deprecatedEndpoints, true);
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
    assert.ok(problems.some((line) => line.startsWith('PORT:')));
    assert.ok(problems.some((line) => line.startsWith('DEPRECATED_ENDPOINTS:')));
    assert.ok(problems.some((line) => line.startsWith('MAX_BODY_BYTES:')));
  }
});

test('limits: defaults, overrides, and a headers timeout above the request timeout refused', () => {
  assert.equal(parseConfig({}).limits, { maxConnections: 10_000, maxEventStreams: 10_000, maxJsonDepth: 100, headersTimeoutMs: 30_000, requestTimeoutMs: 60_000 });
  assert.equal(
    parseConfig({ MAX_CONNECTIONS: '50', MAX_EVENT_STREAMS: '5', MAX_JSON_DEPTH: '10', HEADERS_TIMEOUT_MS: '1000', REQUEST_TIMEOUT_MS: '2000' }).limits,
    { maxConnections: 50, maxEventStreams: 5, maxJsonDepth: 10, headersTimeoutMs: 1000, requestTimeoutMs: 2000 },
  );
  assert.throws(() => parseConfig({ HEADERS_TIMEOUT_MS: '70000' }), (error: unknown) =>
    (error as ConfigError).problems.some((line) => line === 'HEADERS_TIMEOUT_MS: must not exceed REQUEST_TIMEOUT_MS'));
  assert.throws(() => parseConfig({ MAX_CONNECTIONS: '0' }), (error: unknown) => (error as ConfigError).problems[0]!.startsWith('MAX_CONNECTIONS:'));
});

test('production refuses to start without a token', () => {
  assert.throws(() => parseConfig({ NODE_ENV: 'production' }), /API_AUTH_TOKEN: must be set/);
  assert.is(parseConfig({ NODE_ENV: 'production', API_AUTH_TOKEN: 's3cret' }).authToken, 's3cret');
});

test('an empty token counts as unset', () => {
  assert.is(parseConfig({ API_AUTH_TOKEN: '' }).authToken, undefined);
});

test('the engine is temporal when TEMPORAL_ADDRESS is set, unless ENGINE says otherwise', () => {
  assert.is(parseConfig({}).engine, 'memory');
  const temporal = parseConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', TEMPORAL_TLS: 'on', TEMPORAL_API_KEY: 'k' });
  assert.is(temporal.engine, 'temporal');
  assert.equal(temporal.temporal, { address: '127.0.0.1:7233', namespace: 'default', apiKey: 'k', tls: true });
  assert.is(parseConfig({ TEMPORAL_ADDRESS: '127.0.0.1:7233', ENGINE: 'memory' }).engine, 'memory');
  assert.throws(() => parseConfig({ ENGINE: 'temporal' }), /TEMPORAL_ADDRESS: must be set when ENGINE=temporal/);
  assert.throws(() => parseConfig({ ENGINE: 'cassandra' }), /ENGINE:/);
  assert.throws(() => parseConfig({ PAGE_TOKEN_SECRET: 'short' }), /PAGE_TOKEN_SECRET: must be at least 16 characters/);
  assert.is(parseConfig({ PAGE_TOKEN_SECRET: 'a-secret-of-16-chars' }).pageTokenSecret, 'a-secret-of-16-chars');
});

test.run();

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
