// The `flowgate` run commands against servers that misbehave, each a real loopback server this test starts (and
// always stops): one that accepts and never answers, one that answers a 200 that is not JSON, an HTML 502, a stream
// that is slow after its first byte. The command is the real binary from source, a child process: every fault is
// one line on stderr naming what happened, exit 3, never a stack, never a hang.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CLI, ROOT } from './process.js';

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  seconds: number;
}

/** `flowgate ARGS` from source against `url`; killed (and failing the test) if it runs past `limitMs`. */
function flowgate(url: string, args: string[], limitMs = 60_000): Promise<Outcome> {
  const { FLOWGATE_TOKEN: _token, FLOWGATE_URL: _url, ...env } = process.env;
  return new Promise((resolve, reject) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [...CLI, ...args, '--url', url], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, seconds: (Date.now() - startedAt) / 1000 });
    });
  });
}

/** Exit 3, nothing on stdout (with --json, `json`), and stderr exactly `line` (one line, no stack). */
function failsWith(outcome: Outcome, line: string, json?: unknown): void {
  assert.is(outcome.code, 3, `exit 3 expected:\n${outcome.stdout}\n${outcome.stderr}`);
  if (json === undefined) assert.is(outcome.stdout, '');
  else assert.equal(JSON.parse(outcome.stdout), json);
  assert.is(outcome.stderr, `${line}\n`);
}

interface Servers {
  servers: Server[];
  silent: string;
  notJson: string;
  plainText: string;
  htmlBadGateway: string;
  slowAnswers: string;
}

/** A loopback server, stopped by the suite's `after`; its connections are cut at close (the silent one holds them). */
async function listen(context: Servers, handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(handler);
  context.servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const STATUS_VIEW = { workflowId: 'w', runId: 'r', workflowName: 'n', catalog: 'main', status: 'completed', startedAt: '2026-01-01T00:00:00Z', closedAt: '2026-01-01T00:00:01Z' };
const RESULT = { v: '2', workflowId: 'w', runId: 'r', status: 'completed', input: {}, output: { ok: true }, error: null, trace: null };

const faults = suite<Servers>('flowgate against servers that misbehave');

faults.before(async (context) => {
  context.servers = [];
  context.silent = await listen(context, () => {
    // Accepts, reads the request, never answers.
  });
  context.notJson = await listen(context, (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{oops, not json');
  });
  context.plainText = await listen(context, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('hello from another server');
  });
  context.htmlBadGateway = await listen(context, (_req, res) => {
    res.writeHead(502, { 'content-type': 'text/html' });
    res.end('<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>\n');
  });
  // Slow but well: a long-poll answered after 2.5 s, a stream quiet for 2.5 s after its first event.
  context.slowAnswers = await listen(context, (req, res) => {
    if (req.headers.accept === 'text/event-stream') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: workflow\ndata: ${JSON.stringify(STATUS_VIEW)}\n\n`);
      setTimeout(() => res.end('event: done\ndata: {"status":"completed"}\n\n'), 2_500);
      return;
    }
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(RESULT));
    }, 2_500);
  });
});

faults.after(async (context) => {
  for (const server of context.servers ?? []) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

faults('a server that accepts and never answers: each command gives up after --timeout, or 30 s by default; exit 3, one line', async ({ silent }) => {
  const [byDefault, status, list, follow, result] = await Promise.all([
    // Room for a slow start on a loaded machine: the default it waits for is 30 s.
    flowgate(silent, ['status', 'w'], 120_000),
    flowgate(silent, ['status', 'w', '--timeout', '1']),
    flowgate(silent, ['list', '--timeout', '0.5', '--json']),
    flowgate(silent, ['follow', 'w', '--timeout', '1']),
    flowgate(silent, ['result', 'w', '--wait', '1', '--timeout', '1']),
  ]);
  failsWith(status, `flowgate status: no answer to GET ${silent}/workflow/w/status within 1 s`);
  // Started together, so however slowly the machine starts them, --timeout 1 ends long before the default's 30 s.
  assert.ok(status.seconds + 20 < byDefault.seconds, `status ended after ${status.seconds} s, the default after ${byDefault.seconds} s`);
  // With --json, what happened as one JSON line on stdout (docs/cli.md).
  failsWith(list, `flowgate list: no answer to GET ${silent}/workflow/list within 0.5 s`, {
    error: 'FlowgateTimeoutError',
    message: `no answer to GET ${silent}/workflow/list within 0.5 s`,
  });
  failsWith(follow, `flowgate follow: no answer to GET ${silent}/workflow/w/history within 1 s`);
  // Counted after the second the call asked the server to wait.
  failsWith(result, `flowgate result: no answer to GET ${silent}/workflow/w/result?wait=1 within 2 s`);
  failsWith(byDefault, `flowgate status: no answer to GET ${silent}/workflow/w/status within 30 s`);
  assert.ok(byDefault.seconds >= 30, `the default: ended after ${byDefault.seconds} s`);
});

faults('the timeout counts after a long-poll\'s wait, and only to a stream\'s first byte', async ({ slowAnswers }) => {
  const [result, follow] = await Promise.all([
    flowgate(slowAnswers, ['result', 'w', '--wait', '2', '--timeout', '1', '--json']),
    flowgate(slowAnswers, ['follow', 'w', '--timeout', '1']),
  ]);
  assert.is(result.code, 0, result.stderr);
  assert.equal(JSON.parse(result.stdout), RESULT);
  assert.is(follow.code, 0, follow.stderr);
  assert.equal(follow.stdout.trim().split('\n').map((line) => JSON.parse(line).event), ['workflow', 'done']);
});

faults('a 200 that is not JSON: one line naming the status, the URL and the content type; exit 3', async ({ notJson, plainText }) => {
  const [status, runs, follow] = await Promise.all([
    flowgate(notJson, ['status', 'w']),
    flowgate(plainText, ['runs', '--json']),
    flowgate(plainText, ['follow', 'w']),
  ]);
  const wrongAddress = "is --url (or FLOWGATE_URL) the API's address?";
  failsWith(status, `flowgate status: the answer to GET ${notJson}/workflow/w/status is not the API's JSON (HTTP 200, content-type application/json); ${wrongAddress}`);
  failsWith(runs, `flowgate runs: the answer to GET ${plainText}/workflow/runs is not the API's JSON (HTTP 200, content-type text/plain); ${wrongAddress}`);
  failsWith(follow, `flowgate follow: the answer to GET ${plainText}/workflow/w/history is not the API's JSON (HTTP 200, content-type text/plain); ${wrongAddress}`);
});

faults('an HTML 502 from a proxy: one line naming the status and the URL, never the page; exit 3', async ({ htmlBadGateway }) => {
  const [status, start] = await Promise.all([
    flowgate(htmlBadGateway, ['status', 'w']),
    flowgate(htmlBadGateway, ['start', 'greet', '--input', '{}', '--json']),
  ]);
  failsWith(status, `flowgate status: the answer to GET ${htmlBadGateway}/workflow/w/status is not the API's JSON (HTTP 502, content-type text/html); is --url (or FLOWGATE_URL) the API's address?`);
  failsWith(start, `flowgate start: the answer to POST ${htmlBadGateway}/workflow is not the API's JSON (HTTP 502, content-type text/html); is --url (or FLOWGATE_URL) the API's address?`);
});

faults.run();
