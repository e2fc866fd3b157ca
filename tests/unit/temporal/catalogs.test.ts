import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Metadata, status } from '@grpc/grpc-js';
import { CatalogReader } from '../../../adapters/temporal/engine/catalogs.js';
import { catalogMemoOf } from '../../../adapters/temporal/engine/catalogMemo.js';
import { enums } from '../../../adapters/temporal/engine/proto.js';
import { CATALOG_MEMO_KEY, type CatalogMemo } from '../../../adapters/temporal/protocol.js';
import { ManualClock } from '../../support/manualClock.js';
import { CapturingLogger } from '../../support/logLines.js';
import { FakeClient } from './fakeClient.js';
import { executionInfo, payloads, timestamp } from './protoFixtures.js';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const LIVENESS_MS = 90_000;


function memo(overrides: Partial<CatalogMemo> = {}): CatalogMemo {
  return {
    catalog: 'main',
    workflows: [
      { name: 'echo', description: 'echoes', inputSchema: { type: 'object' }, outputSchema: true },
      { name: 'sum', description: 'adds', inputSchema: {}, outputSchema: {} },
    ],
    onlineWorkers: ['worker-1'],
    publishedAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

interface World {
  memo?: CatalogMemo | 'garbage';
  type?: string;
  status?: string;
  /** Seconds since the last poll, per task queue type; absent: no poller. */
  workflowPollAge?: number;
  activityPollAge?: number;
  describeFails?: boolean;
}

function registry(world: World): FakeClient {
  const poller = (age: number | undefined) => (age === undefined ? [] : [{ identity: 'worker-1', lastAccessTime: timestamp(new Date(NOW - age * 1000).toISOString()) }]);
  return new FakeClient({
    describeWorkflowExecution: () => {
      if (world.describeFails) throw Object.assign(new Error('14 UNAVAILABLE: down'), { code: status.UNAVAILABLE, details: 'down', metadata: new Metadata() });
      if (!world.memo) throw Object.assign(new Error('5 NOT_FOUND: nope'), { code: status.NOT_FOUND, details: 'nope', metadata: new Metadata() });
      const fields = { [CATALOG_MEMO_KEY]: payloads(world.memo === 'garbage' ? 'not a memo' : world.memo).payloads![0] };
      return {
        workflowExecutionInfo: executionInfo({
          type: { name: world.type ?? 'flowgate.catalog' },
          status: world.status ?? 'WORKFLOW_EXECUTION_STATUS_RUNNING',
          memo: { fields },
        }),
      };
    },
    describeTaskQueue: (request: { taskQueueType: number }) => ({
      pollers: poller(request.taskQueueType === enums.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW ? world.workflowPollAge : world.activityPollAge),
    }),
  });
}

function reader(client: FakeClient, clock = new ManualClock(NOW), cacheMs = 1000, logger = new CapturingLogger()): CatalogReader {
  return new CatalogReader({ calls: client.calls(), clock, logger, cacheMs, workerLivenessMs: LIVENESS_MS });
}

test('an unknown catalog is undefined; a known one lists what its memo publishes', async () => {
  assert.is(await reader(registry({})).describe('main'), undefined);
  const described = await reader(registry({ memo: memo(), workflowPollAge: 5, activityPollAge: 5 })).describe('main');
  assert.equal(described, { name: 'main', available: true, workflows: memo().workflows });
});

test('available only with an online worker, an open registry and recent pollers on both queues', async () => {
  const cases: [World, boolean][] = [
    [{ memo: memo(), workflowPollAge: 80, activityPollAge: 1 }, true],
    [{ memo: memo(), workflowPollAge: 100, activityPollAge: 1 }, false],
    [{ memo: memo(), workflowPollAge: 1 }, false],
    [{ memo: memo({ onlineWorkers: [] }), workflowPollAge: 1, activityPollAge: 1 }, false],
    [{ memo: memo(), status: 'WORKFLOW_EXECUTION_STATUS_TERMINATED', workflowPollAge: 1, activityPollAge: 1 }, false],
  ];
  for (const [world, available] of cases) assert.is((await reader(registry(world)).describe('main'))?.available, available, JSON.stringify(world));
  const noWorkers = registry({ memo: memo({ onlineWorkers: [] }) });
  await reader(noWorkers).describe('main');
  assert.is(noWorkers.count('describeTaskQueue'), 0, 'no poller lookup when no worker is online');
});

test('an id squatted by another workflow type is not a catalog; an unreadable memo is an empty, unavailable catalog', async () => {
  assert.is(await reader(registry({ memo: memo(), type: 'something_else' })).describe('main'), undefined);
  const logger = new CapturingLogger();
  assert.equal(await reader(registry({ memo: 'garbage' }), undefined, undefined, logger).describe('main'), { name: 'main', available: false, workflows: [] });
  assert.is(logger.messages('warn').length, 1);
});

test('cached for cacheMs, shared by concurrent callers; failures are not cached', async () => {
  const world: World = { memo: memo(), workflowPollAge: 1, activityPollAge: 1 };
  const client = registry(world);
  const clock = new ManualClock(NOW);
  const catalogs = reader(client, clock);
  const [a, b] = await Promise.all([catalogs.describe('main'), catalogs.describe('main')]);
  assert.is(a, b);
  assert.is(client.count('describeWorkflowExecution'), 1);
  clock.set(clock.now() + 999);
  await catalogs.describe('main');
  assert.is(client.count('describeWorkflowExecution'), 1);
  clock.set(clock.now() + 2);
  await catalogs.describe('main');
  assert.is(client.count('describeWorkflowExecution'), 2);

  world.describeFails = true;
  clock.set(clock.now() + 1001);
  try {
    await catalogs.describe('main');
    assert.unreachable('Temporal is down');
  } catch (error) {
    assert.is((error as Error).name, 'EngineUnavailableError');
  }
  world.describeFails = false;
  assert.ok(await catalogs.describe('main'), 'the next call asks again');
});

test('names that are not deployed do not pile up: the 1,000 catalogs read last are kept, older ones are read again', async () => {
  const client = registry({});
  const catalogs = reader(client, new ManualClock(NOW), 10 * 60_000);
  for (let index = 0; index <= 1000; index += 1) assert.is(await catalogs.describe(`typo-${index}`), undefined);
  assert.is(client.count('describeWorkflowExecution'), 1001);
  await catalogs.describe('typo-1000');
  await catalogs.describe('typo-1');
  assert.is(client.count('describeWorkflowExecution'), 1001, 'the last 1,000 are still cached');
  await catalogs.describe('typo-0');
  assert.is(client.count('describeWorkflowExecution'), 1002, 'the oldest was let go');
});

test('workflow type objects stay the same while their content is unchanged', async () => {
  const world: World = { memo: memo(), workflowPollAge: 1, activityPollAge: 1 };
  const clock = new ManualClock(NOW);
  const catalogs = reader(registry(world), clock, 0);
  const first = (await catalogs.describe('main'))!.workflows;
  const second = (await catalogs.describe('main'))!.workflows;
  assert.ok(first === second, 'the same list');
  assert.ok(Object.isFrozen(first[0]) && Object.isFrozen(first[0]!.inputSchema), 'frozen: shared objects cannot be changed by a caller');
  world.memo = memo({ workflows: [memo().workflows[0]!, { name: 'sum', description: 'adds, now documented', inputSchema: {}, outputSchema: {} }] });
  const third = (await catalogs.describe('main'))!.workflows;
  assert.ok(third !== first, 'a new list');
  assert.ok(third[0] === first[0], 'unchanged echo keeps its object');
  assert.ok(third[1] !== first[1], 'changed sum is new');
});

test('a published run time limit is kept for the starter, and left out of what the core sees', async () => {
  const published = memo({ workflows: [{ ...memo().workflows[0]!, runTimeoutMs: 150 } as never, { ...memo().workflows[1]!, runTimeoutMs: -1 } as never] });
  const catalogs = reader(registry({ memo: published, workflowPollAge: 1, activityPollAge: 1 }));
  assert.is(await catalogs.runTimeoutMs('main', 'echo'), 150);
  assert.is(await catalogs.runTimeoutMs('main', 'sum'), undefined, 'an unusable value is ignored');
  assert.is(await catalogs.runTimeoutMs('main', 'unknown'), undefined);
  assert.equal((await catalogs.describe('main'))!.workflows, memo().workflows);
  assert.is(await reader(registry({})).runTimeoutMs('main', 'echo'), undefined, 'an unknown catalog has none');
});

test('catalogsWith: running registries whose memo publishes the workflow, sorted', async () => {
  const info = (catalog: string, names: string[]) =>
    executionInfo({
      type: { name: 'flowgate.catalog' },
      memo: { fields: { [CATALOG_MEMO_KEY]: payloads(memo({ catalog, workflows: names.map((name) => ({ name, description: '', inputSchema: {}, outputSchema: {} })) })).payloads![0] } },
    });
  const client = new FakeClient({
    listWorkflowExecutions: () => ({ executions: [info('zeta', ['echo']), info('alpha', ['echo', 'sum']), info('mid', ['sum'])], nextPageToken: new Uint8Array() }),
  });
  assert.equal(await reader(client).catalogsWith('echo'), ['alpha', 'zeta']);
  assert.match(client.requests[0]!.request.query, /WorkflowType = 'flowgate.catalog' AND ExecutionStatus = 'Running'/);
});

test('catalogMemoOf checks the shape', () => {
  const field = (value: unknown) => ({ [CATALOG_MEMO_KEY]: payloads(value).payloads![0]! });
  assert.equal(catalogMemoOf(field(memo())), memo());
  assert.is(catalogMemoOf(field({ ...memo(), workflows: [{ name: 1 }] })), undefined);
  assert.is(catalogMemoOf(field({ ...memo(), onlineWorkers: 'w' })), undefined);
  assert.is(catalogMemoOf({}), undefined);
  assert.is(catalogMemoOf(undefined), undefined);
});

test.run();
