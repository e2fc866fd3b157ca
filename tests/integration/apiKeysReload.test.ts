// API_KEYS_FILE against a real `flowgate serve` (docs/security.md): a key added, rotated and revoked without a restart,
// when the file changes and on SIGHUP; a file that cannot be used keeps the keys in force and logs one error line;
// the server does not start with one.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { request } from 'undici';
import { CLI, runCommand, startServerProcess, type ServerProcess } from './process.js';
import { TestKeyFile, testKey, type TestKey } from '../support/keyFiles.js';
import { eventually } from '../support/eventually.js';

const dashboard = testKey('dashboard', ['read']);
const ci2026 = testKey('ci-2026', ['start', 'read']);
const ci2027 = testKey('ci-2027', ['start', 'read']);

interface Context {
  file?: TestKeyFile;
  server?: ServerProcess;
}

const reload = suite<Context>('flowgate serve with API_KEYS_FILE');

reload.before(async (context) => {
  context.file = new TestKeyFile([dashboard, ci2026]);
  context.server = await startServerProcess({ API_KEYS_FILE: context.file.path, SHUTDOWN_GRACE_MS: '1000' });
});

reload.after(async (context) => {
  await context.server?.stop('SIGKILL');
  context.file?.remove();
});

async function statusFor(server: ServerProcess, key: TestKey): Promise<number> {
  const response = await request(`${server.url}/workflow/list`, { headers: key.headers });
  await response.body.dump();
  return response.statusCode;
}

const logLines = (server: ServerProcess) =>
  server
    .stdout()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

reload('rotation without a restart: a new key added beside the old one, then the old one revoked', async ({ server, file }) => {
  assert.equal([await statusFor(server!, dashboard), await statusFor(server!, ci2026), await statusFor(server!, ci2027)], [200, 200, 401]);
  file!.write([dashboard, ci2026, ci2027]);
  await eventually('the new key works', async () => (await statusFor(server!, ci2027)) === 200, { intervalMs: 50 });
  assert.is(await statusFor(server!, ci2026), 200, 'both keys live at once');
  file!.write([dashboard, ci2027]);
  await eventually('the old key is revoked', async () => (await statusFor(server!, ci2026)) === 401, { intervalMs: 50 });
  assert.is(await statusFor(server!, ci2027), 200);
  assert.ok(logLines(server!).some((line) => line.msg === 'access keys reloaded' && line.trigger === 'change'));
});

reload('a file that cannot be used keeps the keys in force and logs one error line naming the entry', async ({ server, file }) => {
  const errorsBefore = logLines(server!).filter((line) => line.level === 'error' || line.level === 50).length;
  file!.write([dashboard, ci2027, { ...ci2026, entry: { ...ci2026.entry, scopes: ['read', 'deploy'] } }]);
  await eventually('the refusal is logged', async () => logLines(server!).some((line) => line.msg === 'access keys not reloaded; the previous keys stay'), { intervalMs: 50 });
  const refusals = logLines(server!).filter((line) => line.msg === 'access keys not reloaded; the previous keys stay');
  assert.is(refusals.length, 1);
  assert.match(String(refusals[0]!.error), /keys\[2\] \(id "ci-2026"\): scopes\[1\] is "deploy", not a scope/);
  assert.ok(logLines(server!).filter((line) => line.level === 'error' || line.level === 50).length === errorsBefore + 1, 'one error line');
  assert.equal([await statusFor(server!, dashboard), await statusFor(server!, ci2027), await statusFor(server!, ci2026)], [200, 200, 401]);
});

reload('SIGHUP reads the file at once (a watcher may miss a change; the signal does not)', async ({ server, file }) => {
  file!.write([ci2026]);
  server!.child.kill('SIGHUP');
  await eventually('the key is back', async () => (await statusFor(server!, ci2026)) === 200, { intervalMs: 50 });
  await eventually('the dashboard key is revoked', async () => (await statusFor(server!, dashboard)) === 401, { intervalMs: 50 });
  assert.ok(logLines(server!).some((line) => line.msg === 'access keys reloaded'));
  assert.is(server!.child.exitCode, null, 'SIGHUP does not stop the server');
  assert.not.ok(server!.stdout().includes(ci2026.secret), 'no secret is logged');
});

reload.run();

const start = suite('flowgate serve with a key file it cannot use');

start('does not start: exit 2 and one line naming the file and the entry', async () => {
  const file = new TestKeyFile([dashboard, { ...ci2026, entry: { ...ci2026.entry, id: 'dashboard' } }]);
  try {
    const { code, stdout, stderr } = await runCommand(process.execPath, [...CLI, 'serve', '--workflows', 'examples/workflows', '--in-memory'], {
      API_KEYS_FILE: file.path,
      HOST: '127.0.0.1',
      PORT: '0',
    });
    assert.is(code, 2, `${stdout}\n${stderr}`);
    const lines = stderr.trim().split('\n');
    assert.is(lines.length, 1, stderr);
    assert.is(lines[0], `flowgate serve: invalid configuration: API_KEYS_FILE ${file.path}: keys[1] (id "dashboard"): id is already used by keys[0]`);
    assert.not.match(stdout, /listening/);
  } finally {
    file.remove();
  }
});

start.run();
