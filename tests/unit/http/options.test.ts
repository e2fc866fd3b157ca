import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HTTP_APP_DEFAULTS as ADAPTER_DEFAULTS, resolveHttpAppOptions, type HttpAppOptions } from '../../../adapters/http/options.js';
import { createHttpApp } from '../../../adapters/http/app.js';
import { RecordingApi, SequentialIds } from './fakeApi.js';
import { HTTP_APP_DEFAULTS } from '../../support/httpDefaults.js';
import { CapturingLogger } from '../../support/logLines.js';

const ports = (): HttpAppOptions => ({ api: new RecordingApi(), logger: new CapturingLogger(), ids: new SequentialIds(), ...HTTP_APP_DEFAULTS });

test('the adapter\'s own defaults are the documented ones; the configured limits come from composition/config.ts', () => {
  const resolved = resolveHttpAppOptions(ports());
  assert.equal(
    {
      maxBodyBytes: resolved.maxBodyBytes,
      runTimeoutMaxSeconds: resolved.runTimeoutMaxSeconds,
      defaultRunTimeoutSeconds: resolved.defaultRunTimeoutSeconds,
      deprecatedEndpoints: resolved.deprecatedEndpoints,
      sseHeartbeatMs: resolved.sseHeartbeatMs,
      maxEventStreams: resolved.maxEventStreams,
      maxJsonDepth: resolved.maxJsonDepth,
      validateResponses: resolved.validateResponses,
      ui: resolved.ui,
      compression: resolved.compression,
      authToken: resolved.authToken,
    },
    { ...ADAPTER_DEFAULTS, ...HTTP_APP_DEFAULTS, authToken: undefined },
  );
  assert.equal(ADAPTER_DEFAULTS, { defaultRunTimeoutSeconds: 30, sseHeartbeatMs: 15_000, validateResponses: false, ui: true, compression: true });
  assert.equal(HTTP_APP_DEFAULTS, {
    maxBodyBytes: 2_097_152,
    runTimeoutMaxSeconds: 3600,
    deprecatedEndpoints: true,
    ui: true,
    compression: true,
    maxEventStreams: 10_000,
    maxJsonDepth: 100,
  });
});

test('bad options are refused at construction, each one named', () => {
  const cases: [Partial<HttpAppOptions> & Record<string, unknown>, RegExp][] = [
    [{ maxBodyBytes: 0 }, /maxBodyBytes/],
    [{ ui: 'off' as unknown as boolean }, /ui must be a boolean/],
    [{ compression: 'off' as unknown as boolean }, /compression must be a boolean/],
    [{ uiDir: '' }, /uiDir/],
    [{ maxBodyBytes: 1.5 }, /maxBodyBytes/],
    [{ runTimeoutMaxSeconds: -1 }, /runTimeoutMaxSeconds/],
    [{ runTimeoutMaxSeconds: Number.POSITIVE_INFINITY }, /runTimeoutMaxSeconds/],
    [{ defaultRunTimeoutSeconds: 0 }, /defaultRunTimeoutSeconds/],
    [{ defaultRunTimeoutSeconds: 100, runTimeoutMaxSeconds: 60 }, /must not exceed runTimeoutMaxSeconds/],
    [{ runTimeoutMaxSeconds: 0 }, /runTimeoutMaxSeconds/],
    [{ sseHeartbeatMs: 0 }, /sseHeartbeatMs/],
    [{ maxEventStreams: 0 }, /maxEventStreams must be a positive integer/],
    [{ maxJsonDepth: 2.5 }, /maxJsonDepth must be a positive integer/],
    [{ authToken: '' }, /authToken must be a non-empty string/],
    [{ authToken: 'has space' }, /authToken must not contain whitespace/],
    [{ deprecatedEndpoints: 'off' as unknown as boolean }, /deprecatedEndpoints/],
    [{ api: undefined }, /api is required/],
  ];
  for (const [overrides, expected] of cases) {
    assert.throws(() => createHttpApp({ ...ports(), ...overrides }), expected, JSON.stringify(overrides));
  }
});

test('a maximum below the default timeout lowers the default instead of refusing to start', () => {
  assert.is(resolveHttpAppOptions({ ...ports(), runTimeoutMaxSeconds: 10 }).defaultRunTimeoutSeconds, 10);
  assert.is(resolveHttpAppOptions({ ...ports(), runTimeoutMaxSeconds: 0.5 }).defaultRunTimeoutSeconds, 0.5);
  assert.is(resolveHttpAppOptions({ ...ports(), runTimeoutMaxSeconds: 7200 }).defaultRunTimeoutSeconds, 30);
  assert.throws(() => resolveHttpAppOptions({ ...ports(), runTimeoutMaxSeconds: 10, defaultRunTimeoutSeconds: 11 }), /must not exceed/);
});

test('every problem is reported at once', () => {
  try {
    resolveHttpAppOptions({ ...ports(), maxBodyBytes: -1, sseHeartbeatMs: -1 });
    assert.unreachable();
  } catch (error) {
    assert.match((error as Error).message, /maxBodyBytes.*sseHeartbeatMs/);
  }
});

test('the token never appears in an options error', () => {
  try {
    resolveHttpAppOptions({ ...ports(), authToken: 'super secret', maxBodyBytes: 0 });
    assert.unreachable();
  } catch (error) {
    assert.not.match((error as Error).message, /super secret/);
  }
});

test.run();
