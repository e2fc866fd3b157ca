import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { PinoLogger, REDACTION_CENSOR } from '../../adapters/log/index.js';
import { childLogger, type LogFields, type Logger } from '../../ports/logger.js';

/** A destination that keeps each written line, parsed. */
function lines(): { destination: { write(line: string): void }; written: LogFields[] } {
  const written: LogFields[] = [];
  return { written, destination: { write: (line: string) => void written.push(JSON.parse(line) as LogFields) } };
}

test('one JSON object per line with the field names the logs have always had: level, time (ISO 8601), msg, the fields', () => {
  const { destination, written } = lines();
  const logger = new PinoLogger({ destination });
  logger.info('http request', { method: 'GET', path: '/health', status: 200, durationMs: 0.4, requestId: 'r-1' });
  logger.warn('careful');
  assert.is(written.length, 2);
  const [line, warning] = written as [LogFields, LogFields];
  assert.equal(Object.keys(line).sort(), ['durationMs', 'level', 'method', 'msg', 'path', 'requestId', 'status', 'time']);
  assert.is(line.level, 'info');
  assert.is(line.msg, 'http request');
  assert.match(String(line.time), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  assert.equal({ method: line.method, status: line.status, durationMs: line.durationMs }, { method: 'GET', status: 200, durationMs: 0.4 });
  assert.equal(Object.keys(warning).sort(), ['level', 'msg', 'time'], 'no pid or hostname');
  assert.is(warning.level, 'warn');
});

test('LOG_LEVEL: lines below the level are not written; silent writes nothing; an unknown level is refused', () => {
  const { destination, written } = lines();
  const logger = new PinoLogger({ level: 'warn', destination });
  logger.info('dropped');
  logger.warn('kept');
  logger.error('kept too');
  assert.equal(written.map((line) => line.level), ['warn', 'error']);
  const silent = lines();
  const quiet = new PinoLogger({ level: 'silent', destination: silent.destination });
  quiet.error('nothing');
  assert.is(silent.written.length, 0);
  assert.throws(() => new PinoLogger({ level: 'debug' as never, destination }), /level must be one of info, warn, error, silent/);
});

test('child loggers carry their fields on every line, nested children all of them; base fields on every line', () => {
  const { destination, written } = lines();
  const logger = new PinoLogger({ destination, base: { service: 'api' } });
  const request = logger.child({ requestId: 'r-2', workflowId: 'wf-1' });
  request.error('request failed', { status: 500 });
  request.child!({ runId: 'run-1' }).info('deeper');
  logger.info('outside');
  assert.equal(
    written.map(({ time: _time, ...rest }) => rest),
    [
      { level: 'error', service: 'api', requestId: 'r-2', workflowId: 'wf-1', status: 500, msg: 'request failed' },
      { level: 'info', service: 'api', requestId: 'r-2', workflowId: 'wf-1', runId: 'run-1', msg: 'deeper' },
      { level: 'info', service: 'api', msg: 'outside' },
    ],
  );
});

test('childLogger: a Logger without child gets the fields added by a wrapper', () => {
  const seen: [string, LogFields | undefined][] = [];
  const plain: Logger = { info: (m, f) => seen.push([m, f]), warn: (m, f) => seen.push([m, f]), error: (m, f) => seen.push([m, f]) };
  childLogger(childLogger(plain, { requestId: 'r-3' }), { runId: 'x' }).warn('hi', { status: 1 });
  assert.equal(seen, [['hi', { requestId: 'r-3', runId: 'x', status: 1 }]]);
});

test('secrets are redacted by path: by name at the top level, credentials of a headers object, paths given; Errors are written with name, message and cause', () => {
  const { destination, written } = lines();
  const logger = new PinoLogger({ destination, redact: ['custom.deep.value'] });
  logger.info('call', {
    authorization: 'Bearer abc',
    headers: { authorization: 'Bearer def', accept: 'json' },
    token: 't',
    password: 'p',
    apiKey: 'k',
    custom: { deep: { value: 'v', other: 1 } },
    error: new RangeError('outer', { cause: new Error('inner') }),
    errors: [new TypeError('in a list')],
  });
  const line = written[0]!;
  const text = JSON.stringify(line);
  for (const secret of ['abc', 'def', '"t"', '"p"', '"k"', '"v"']) assert.not.ok(text.includes(secret), `${secret} is not written`);
  assert.is(line.authorization, REDACTION_CENSOR);
  assert.equal(line.headers, { authorization: REDACTION_CENSOR, accept: 'json' });
  assert.equal([line.token, line.password, line.apiKey], [REDACTION_CENSOR, REDACTION_CENSOR, REDACTION_CENSOR]);
  assert.equal(line.custom, { deep: { value: REDACTION_CENSOR, other: 1 } });
  assert.equal(line.error, { name: 'RangeError', message: 'outer', cause: { name: 'Error', message: 'inner' } });
  assert.equal(line.errors, [{ name: 'TypeError', message: 'in a list' }]);
});

test('flush: the lines of an asynchronous destination are in the file once flush resolves', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'flowgate-pino-'));
  try {
    const file = join(dir, 'log.ndjson');
    const destination = pino.destination({ dest: file, sync: false, mkdir: true });
    const logger = new PinoLogger({ destination });
    for (let i = 0; i < 2000; i += 1) logger.info('line', { i });
    await logger.flush();
    const written = (await readFile(file, 'utf8')).trim().split('\n');
    assert.is(written.length, 2000);
    assert.is(JSON.parse(written.at(-1)!).i, 1999);
    destination.end();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

/**
 * A child process logging to its standard output (the default destination) as `script` says, with the chunks its pipe
 * delivered up to the line `done`; the child is killed when that line arrives, so nothing is flushed by an exit.
 */
async function stdoutChunks(script: string): Promise<string[]> {
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};\nconst logger = new PinoLogger();\n${script}\nsetInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  const chunks: string[] = [];
  try {
    return await new Promise<string[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no line "done" within 20 s; got ${JSON.stringify(chunks)}`)), 20_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        chunks.push(chunk);
        if (chunks.join('').includes('"msg":"done"')) {
          clearTimeout(timer);
          resolve(chunks);
        }
      });
      child.on('error', reject);
    });
  } finally {
    child.kill('SIGKILL');
  }
}

test('the default writer: the lines of one event-loop turn go out in one write when nothing more is logged', async () => {
  const chunks = await stdoutChunks(`
    for (let i = 0; i < 5; i += 1) logger.info('line', { i });
    setTimeout(() => logger.info('done'), 600);
  `);
  const first = chunks[0]!.trim().split('\n').map((line) => JSON.parse(line) as LogFields);
  assert.equal(first.map((line) => line.i), [0, 1, 2, 3, 4], 'the five lines of the first turn arrive together');
  assert.equal(chunks.slice(1).join('').trim().split('\n').map((line) => (JSON.parse(line) as LogFields).msg), ['done'], 'the lone line of a later turn is written too');
});

test('the default writer: lines of many turns close together go out in one write', async () => {
  // A line a millisecond for 20 ms: written turn by turn they would reach the pipe as about 20 writes.
  const chunks = await stdoutChunks(`
    let i = 0;
    const next = () => { logger.info('line', { i }); i += 1; if (i < 20) setTimeout(next, 1); else setTimeout(() => logger.info('done'), 300); };
    next();
  `);
  const holding = chunks.filter((chunk) => chunk.includes('"msg":"line"'));
  assert.ok(holding.length <= 2, `the 20 lines came in ${holding.length} reads of the pipe`);
  assert.is(holding.join('').trim().split('\n').length, 20);
});

test('the default writer: while lines keep coming, a turn that logs writes those held 50 ms or more, with no timer of its own', async () => {
  // Eight lines 80 ms apart: each turn after the first finds the line before it held long enough and writes both, so
  // the pipe sees them in pairs or fewer writes still, never one write per line and never one held to the quiet timer.
  const chunks = await stdoutChunks(`
    let i = 0;
    const next = () => { logger.info('line', { i }); i += 1; if (i < 8) setTimeout(next, 80); else setTimeout(() => logger.info('done'), 600); };
    next();
  `);
  const lines = chunks.join('').trim().split('\n').map((line) => JSON.parse(line) as LogFields);
  assert.equal(lines.filter((line) => line.msg === 'line').map((line) => line.i), [0, 1, 2, 3, 4, 5, 6, 7]);
  const holding = chunks.filter((chunk) => chunk.includes('"msg":"line"'));
  assert.ok(holding.length < 8, `the 8 lines came in ${holding.length} reads of the pipe`);
});

test('the default writer: lines logged just before process.exit in the same turn are written', async () => {
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};
    const logger = new PinoLogger();
    for (let i = 0; i < 3; i += 1) logger.info('line', { i });
    logger.error('last words');
    process.exit(3);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const code = await new Promise((resolve) => child.once('close', resolve));
  assert.is(code, 3);
  assert.equal(output.trim().split('\n').map((line) => (JSON.parse(line) as LogFields).msg), ['line', 'line', 'line', 'last words']);
});

test('the default writer: a line logged while an earlier write is on its way is written once that write is done, without a later line', async () => {
  // The parent reads nothing until the child says it logged "done": the first 600 KB fill the pipe and the parent's
  // buffer, so their write is still on its way when "done" is logged.
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};
    const logger = new PinoLogger();
    for (let i = 0; i < 2000; i += 1) logger.info('line', { i, padding: 'x'.repeat(250) });
    setTimeout(() => { logger.info('done'); setTimeout(() => process.stderr.write('logged\\n'), 50); }, 100);
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    child.stdout.pause();
    await new Promise<void>((resolve) => child.stderr.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('logged') && resolve()));
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`no line "done" within 20 s; got ${text.length} characters`)), 20_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('"msg":"done"')) {
          clearTimeout(timer);
          resolve(text);
        }
      });
      child.stdout.resume();
    });
    assert.is(output.trim().split('\n').length, 2001);
  } finally {
    child.kill('SIGKILL');
  }
});

test('the default writer: a warn or error line goes out at the end of its turn, not held behind a timer', async () => {
  // The child's event loop is blocked for 10 s right after the turn that logged: a held line would wait all that time.
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};
    const logger = new PinoLogger();
    logger.info('context');
    logger.warn('urgent');
    setImmediate(() => { const end = Date.now() + 10_000; while (Date.now() < end); process.stderr.write('unblocked\\n'); });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    const first = await new Promise<string>((resolve) => {
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        output += chunk;
        if (output.includes('"msg":"urgent"')) resolve('the line');
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => chunk.includes('unblocked') && resolve('the end of the block'));
    });
    assert.is(first, 'the line');
  } finally {
    child.kill('SIGKILL');
  }
});

test('the default writer: at process.exit, lines of a turn far above the write size are all written, whole, to a slow reader', async () => {
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};
    const logger = new PinoLogger();
    for (let i = 0; i < 3000; i += 1) logger.info('line', { i, padding: 'x'.repeat(250) });
    process.exit(0);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  // The parent reads nothing for a while: the pipe fills, and the exit comes while the rest waits to be written.
  const closed = new Promise((resolve) => child.once('close', resolve));
  child.stdout.pause();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stdout.resume();
  assert.is(await closed, 0);
  const lines = output.trim().split('\n').map((line) => JSON.parse(line) as LogFields);
  assert.equal(lines.map((line) => line.i), Array.from({ length: 3000 }, (_, i) => i));
});

test('the default writer: with standard output not read, at most 16 MiB of lines wait; the rest are counted, and the count logged once it is read again', async () => {
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};
    const logger = new PinoLogger();
    const heapBefore = process.memoryUsage().heapUsed;
    // 40 MB of lines over 40 turns, none of which the parent reads yet.
    let turn = 0;
    const next = () => {
      for (let i = 0; i < 1000; i += 1) logger.info('line', { turn, i, padding: 'x'.repeat(1000) });
      if (++turn < 40) return setImmediate(next);
      globalThis.gc?.();
      process.stderr.write('grew ' + (process.memoryUsage().heapUsed - heapBefore) + '\\n');
      setTimeout(() => logger.info('done'), 1500);
    };
    next();
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    child.stdout.pause();
    const grew = await new Promise<number>((resolve) => {
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        const match = /grew (-?\d+)/.exec(chunk);
        if (match) resolve(Number(match[1]));
      });
    });
    assert.ok(grew < 30 * 1024 * 1024, `the heap grew by ${grew} bytes while 40 MB of lines were logged`);
    const output = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error(`no line "done" and no count of dropped lines within 30 s; got ${text.length} characters`)), 30_000);
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        text += chunk;
        if (text.includes('"msg":"done"') && text.includes('"droppedLines"')) {
          clearTimeout(timer);
          resolve(text);
        }
      });
      child.stdout.resume();
    });
    const lines = output.trim().split('\n').map((line) => JSON.parse(line) as LogFields);
    const written = lines.filter((line) => line.msg === 'line').length;
    const notice = lines.find((line) => line.droppedLines !== undefined)!;
    assert.is(notice.msg, 'log lines dropped: standard output was not read while 16 MiB of lines waited');
    assert.is(notice.level, 'warn');
    assert.is(written + Number(notice!.droppedLines), 40_000);
  } finally {
    child.kill('SIGKILL');
  }
});

test('the default writer: flush gives up on a standard output nobody reads, and the process can exit', async () => {
  const loggerModule = fileURLToPath(new URL('../../adapters/log/pinoLogger.ts', import.meta.url));
  const source = `import { PinoLogger } from ${JSON.stringify(loggerModule)};
    const logger = new PinoLogger();
    for (let i = 0; i < 2000; i += 1) logger.info('line', { i, padding: 'x'.repeat(1000) });
    setTimeout(async () => {
      await logger.flush();
      process.stderr.write('flushed\\n');
      process.exit(0);
    }, 100);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    // Standard output is never read.
    child.stdout.pause();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the process did not exit within 20 s')), 20_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    assert.is(code, 0);
    assert.match(stderr, /flushed/);
  } finally {
    child.kill('SIGKILL');
  }
});

test.run();
