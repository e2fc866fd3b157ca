import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { bundleCatalog, type CatalogBundle } from '../../adapters/temporal/worker/bundle.js';
import { FIXTURE_CATALOGS } from '../support/fixtureCatalogs.js';

/**
 * Upgrading workers while runs wait: a wait now records feedback_wait_started through a memo upsert, a command the
 * workers before it never gave. Histories those workers recorded (a step then a wait, a wait with a time limit, each
 * served by a reply; the `main` catalog's workflows) must replay on today's sandbox without a nondeterminism error.
 */

const HISTORIES = ['step-then-waits', 'awaits-feedback-with-limit'];
const historyFile = (name: string): string => fileURLToPath(new URL(`./fixtures/historiesBeforeWaitEvents/${name}.json`, import.meta.url));

let bundle: Promise<CatalogBundle> | undefined;
const mainBundle = (): Promise<CatalogBundle> =>
  (bundle ??= bundleCatalog({ workflowModules: FIXTURE_CATALOGS.find((catalog) => catalog.catalog === 'main')!.modules, maxResultBytes: 33_554_432 }));

for (const name of HISTORIES) {
  test(`a run recorded before wait events replays on today's workers: ${name}`, async () => {
    // Kept as protobufjs objects (History.toObject: longs and enums as strings, bytes in base64), read back exactly.
    const stored = JSON.parse(await readFile(historyFile(name), 'utf8'));
    const types = stored.events.map((event: { eventType: string }) => event.eventType);
    const history = proto.temporal.api.history.v1.History.fromObject(stored);
    assert.ok(types.includes('EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED') && types.at(-1) === 'EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED', 'a wait served by a reply, then the close');
    await Worker.runReplayHistory({ workflowBundle: (await mainBundle()).workflowBundle }, history, `replay-${name}`);
  });
}

test.run();
