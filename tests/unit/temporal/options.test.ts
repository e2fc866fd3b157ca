import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TemporalEngine } from '../../../adapters/temporal/index.js';
import { checkOptions, type TemporalEngineOptions } from '../../../adapters/temporal/engine/options.js';
import { systemClock } from '../../../adapters/system/index.js';
import { FakeClient } from './fakeClient.js';

const logger = { info() {}, warn() {}, error() {} };
const valid = (): TemporalEngineOptions => ({ client: new FakeClient({}).asClient(), namespace: 'default', logger, clock: systemClock });

function expectOptionError(options: unknown, pattern: RegExp): void {
  try {
    checkOptions(options as TemporalEngineOptions);
  } catch (error) {
    assert.match((error as Error).message, pattern);
    return;
  }
  assert.unreachable(`accepted ${String(pattern)}`);
}

test('defaults', () => {
  const checked = checkOptions(valid());
  assert.equal([checked.catalogCacheMs, checked.workerLivenessMs, checked.rpcTimeoutMs, checked.pageTokenSecret], [1000, 90_000, 10_000, undefined]);
  assert.is(checked.progressPollMs, 1000);
});

test('each bad option is named', () => {
  expectOptionError(null, /options must be an object/);
  expectOptionError({ ...valid(), client: {} }, /options\.client/);
  expectOptionError({ ...valid(), namespace: '' }, /options\.namespace/);
  expectOptionError({ ...valid(), claimChecks: {} }, /options\.claimChecks must be a ClaimCheckCodec/);
  expectOptionError({ ...valid(), maxPayloadBytes: 0 }, /options\.maxPayloadBytes must be a positive integer/);
  expectOptionError({ ...valid(), logger: { info() {} } }, /options\.logger .*missing warn\(\), error\(\)|missing warn, error/);
  expectOptionError({ ...valid(), clock: {} }, /options\.clock/);
  expectOptionError({ ...valid(), catalogCacheMs: -1 }, /options\.catalogCacheMs/);
  expectOptionError({ ...valid(), workerLivenessMs: 0 }, /options\.workerLivenessMs/);
  expectOptionError({ ...valid(), rpcTimeoutMs: Number.NaN }, /options\.rpcTimeoutMs/);
  expectOptionError({ ...valid(), pageTokenSecret: 'short' }, /options\.pageTokenSecret/);
  // A progress poll in a tight loop would be busy polling.
  expectOptionError({ ...valid(), progressPollMs: 0 }, /options\.progressPollMs/);
  expectOptionError({ ...valid(), progressPollMs: 49 }, /options\.progressPollMs/);
});

test('the engine reports kind temporal and closes twice safely', async () => {
  const engine = new TemporalEngine(valid());
  assert.is(engine.kind, 'temporal');
  await engine.close();
  await engine.close();
  try {
    await engine.describe({ workflowId: 'x' });
    assert.unreachable('closed');
  } catch (error) {
    assert.is((error as Error).name, 'EngineUnavailableError');
  }
});

test.run();
