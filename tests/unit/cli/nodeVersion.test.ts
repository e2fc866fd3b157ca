// The Node version `flowgate` refuses to run on (composition/cli/nodeVersion.ts), and that it is package.json's.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFile } from 'node:fs/promises';
import { MINIMUM_NODE_VERSION, unsupportedNodeMessage } from '../../../composition/cli/nodeVersion.js';

test('a Node below 22.13 gets one line naming the Node needed and the one found', () => {
  assert.is(unsupportedNodeMessage('20.20.2'), 'flowgate needs Node.js 22.13 or later; this is Node.js 20.20.2');
  for (const old of ['18.20.8', '20.18.0', '21.7.3', '22.0.0', '22.12.0']) {
    assert.is(unsupportedNodeMessage(old), `flowgate needs Node.js 22.13 or later; this is Node.js ${old}`);
  }
});

test('22.13 and everything after it runs, later majors whatever their minor', () => {
  for (const recent of ['22.13.0', '22.13.1', '22.23.3', '23.0.0', '24.0.0', '24.21.0', '25.1.0', '30.0.0']) {
    assert.is(unsupportedNodeMessage(recent), undefined, recent);
  }
});

test('the version the command checks is the one package.json\'s engines.node names', async () => {
  const manifest = JSON.parse(await readFile(new URL('../../../package.json', import.meta.url), 'utf8')) as { engines: { node: string } };
  assert.is(manifest.engines.node, `>=${MINIMUM_NODE_VERSION}`);
});

test.run();
