// The published package, as a new user gets it: `npm pack`, the tarball installed into a fresh project outside the
// repository, a TypeScript workflow with two steps written there (the files docs/testing.md shows), then
// `npx flowgate serve`, the embedding of docs/embedding.md and the tests of docs/testing.md, through the package's
// public exports only; and `flowgate` on the machine's Node 20, which it refuses in one line. Installs come from npm's
// cache (warm after `npm ci`): --prefer-offline.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { ensureNodeRuntime } from '../../scripts/infra/index.mjs';
import { unsupportedMachineNode, whenUnsupportedNodeExpected } from '../support/unsupportedNode.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ownManifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { devDependencies: Record<string, string>; dependencies: Record<string, string> };
/** The tools a TypeScript project brings itself, at the versions this repository locks (so npm's cache has them). */
const DEV_TOOLS = ['typescript', 'tsx', 'uvu', '@types/node', 'zod'].map((name) => `${name}@${ownManifest.devDependencies[name] ?? ownManifest.dependencies[name]}`);

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

interface Context {
  work: string;
  project: string;
  tarball: string;
  packedFiles: string[];
  setupError?: unknown;
  children: Set<ChildProcess>;
}

/** The path list with `dir` first. */
function pathWithFirst(dir: string): string {
  return [dir, process.env.PATH].filter(Boolean).join(delimiter);
}

/**
 * The environment of everything this suite starts: no coverage of the installed package, no Temporal of the runner;
 * the Node running this suite first on PATH, so npm, npx and the package's `flowgate` (`#!/usr/bin/env node`) run on
 * it rather than on an older Node of the machine.
 */
function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { NODE_V8_COVERAGE: _coverage, TEMPORAL_ADDRESS: _temporal, NODE_OPTIONS: _options, ...env } = process.env;
  return { ...env, PATH: pathWithFirst(dirname(process.execPath)), LOG_LEVEL: 'warn', ...extra };
}

function run(context: Context, command: string, args: string[], options: { cwd: string; env?: Record<string, string>; timeoutMs?: number }): Promise<Run> {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd: options.cwd, env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'] });
    context.children.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('close', (code) => {
      clearTimeout(timer);
      context.children.delete(child);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/**
 * A long-running process of the project (or of `where.cwd`, on `where.node`), resolved once `pattern` appears on
 * `stream`, with its first group.
 */
function startUntil(
  context: Context,
  args: string[],
  stream: 'stdout' | 'stderr',
  pattern: RegExp,
  env: Record<string, string> = {},
  where: { cwd?: string; node?: string } = {},
) {
  const node = where.node ?? process.execPath;
  const child = spawn(node, args, { cwd: where.cwd ?? context.project, env: { ...childEnv(env), PATH: pathWithFirst(dirname(node)) }, stdio: ['ignore', 'pipe', 'pipe'] });
  context.children.add(child);
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk) => (output.stdout += chunk));
  child.stderr.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolvePromise) => child.once('exit', (code) => {
    context.children.delete(child);
    resolvePromise(code);
  }));
  const ready = new Promise<string>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} within 60 s:\n${output.stdout}\n${output.stderr}`)), 60_000);
    const check = () => {
      const match = pattern.exec(output[stream]);
      if (match) {
        clearTimeout(timer);
        resolvePromise(match[1]!);
      }
    };
    child[stream].on('data', check);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ${pattern}:\n${output.stdout}\n${output.stderr}`));
    });
  });
  return { child, ready, exited, output };
}

function withoutColours(text: string): string {
  return text.replace(/\u001b\[\d+m/g, '');
}

/** The fenced blocks of a docs page marked with the file they are (```ts file=workflows/renewal.ts). */
async function docsFiles(page: string): Promise<Map<string, string>> {
  const markdown = await readFile(join(ROOT, 'docs', page), 'utf8');
  return new Map([...markdown.matchAll(/```\w+ file=(\S+)\n([\s\S]*?)```/g)].map((match) => [match[1]!, match[2]!]));
}

async function writeProjectFiles(project: string, files: Map<string, string>): Promise<void> {
  for (const [path, content] of files) {
    await mkdir(dirname(join(project, path)), { recursive: true });
    await writeFile(join(project, path), content);
  }
}


/**
 * A TypeScript example of the docs: a file of the docs' sample project (```ts file=PATH), a whole module of its own
 * (```ts), or a fragment that leans on names the page set up before (```ts fragment), which is not compiled.
 */
interface DocsExample {
  where: string;
  kind: 'file' | 'module' | 'fragment';
  path: string;
  code: string;
}

async function docsTypeScriptExamples(): Promise<DocsExample[]> {
  const examples: DocsExample[] = [];
  for (const page of (await readdir(join(ROOT, 'docs'))).filter((name) => name.endsWith('.md')).sort()) {
    const markdown = await readFile(join(ROOT, 'docs', page), 'utf8');
    for (const match of markdown.matchAll(/^```(?:ts|typescript|tsx)\b([^\n]*)\n([\s\S]*?)^```/gm)) {
      const line = markdown.slice(0, match.index).split('\n').length;
      const where = `docs/${page}:${line}`;
      const info = match[1]!.trim();
      const file = /^file=(\S+)$/.exec(info)?.[1];
      if (info !== '' && info !== 'fragment' && file === undefined) throw new Error(`${where}: \`\`\`ts ${info}: say file=PATH, fragment, or nothing`);
      const kind = file !== undefined ? 'file' : info === 'fragment' ? 'fragment' : 'module';
      examples.push({ where, kind, path: file ?? `${page.replace(/\.md$/, '')}-line-${line}.ts`, code: match[2]! });
    }
  }
  return examples;
}

const pkg = suite<Context>('the packed package in a fresh project');

pkg.before(async (context) => {
  // uvu reports a throwing `before` hook only as "0 / N": the failure is kept and thrown by every test instead.
  try {
    context.children = new Set();
    context.work = await mkdtemp(join(tmpdir(), 'flowgate-package-'));
    const packed = await run(context, 'npm', ['pack', '--json', '--pack-destination', context.work], { cwd: ROOT, timeoutMs: 360_000 });
    assert.is(packed.code, 0, packed.stderr);
    const [description] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    context.tarball = join(context.work, description!.filename);
    context.packedFiles = description!.files.map((file) => file.path);
    context.project = join(context.work, 'project');
    await mkdir(context.project);
    await writeFile(join(context.project, 'package.json'), `${JSON.stringify({ name: 'my-flows', private: true, type: 'module' }, null, 2)}\n`);
    const installed = await run(context, 'npm', ['install', context.tarball, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: context.project, timeoutMs: 360_000 });
    assert.is(installed.code, 0, installed.stderr);
    await writeProjectFiles(context.project, await docsFiles('testing.md'));
    await writeProjectFiles(context.project, await docsFiles('embedding.md'));
    await writeProjectFiles(context.project, await docsFiles('client.md'));
  } catch (error) {
    context.setupError = error;
  }
});

pkg.before.each((context) => {
  if (context.setupError !== undefined) {
    throw new Error(`the packed package could not be set up: ${context.setupError instanceof Error ? context.setupError.message : String(context.setupError)}`);
  }
});

pkg.after(async (context) => {
  for (const child of context.children ?? []) child.kill('SIGKILL');
  if (context.work) await rm(context.work, { recursive: true, force: true });
});

pkg('ships the build, docs, README and LICENSE: no sources, tests, benchmarks or examples; source maps carry their sources', async ({ project, packedFiles }) => {
  const outside = packedFiles.filter((path) => !/^(dist\/(core|ports|adapters|composition|ui)\/|docs\/[^/]+\.md$|README\.md$|LICENSE$|package\.json$)/.test(path));
  assert.equal(outside, []);
  assert.equal(packedFiles.filter((path) => path.endsWith('.ts') && !path.endsWith('.d.ts')), []);
  assert.ok(packedFiles.includes('dist/composition/cli/main.js') && packedFiles.includes('docs/api.md'));
  assert.ok(packedFiles.includes('dist/ui/index.html'), 'the browser UI is built into the package');
  const maps = packedFiles.filter((path) => path.endsWith('.js.map'));
  assert.ok(maps.length > 100);
  for (const path of maps) {
    const map = JSON.parse(await readFile(join(project, 'node_modules', 'flowgate', path), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
    assert.ok(map.sourcesContent?.length === map.sources.length && map.sourcesContent.every((text) => typeof text === 'string'), `${path} carries its sources`);
  }
  const manifest = JSON.parse(await readFile(join(project, 'node_modules', 'flowgate', 'package.json'), 'utf8')) as Record<string, any>;
  assert.is(manifest.repository.url, 'git+https://github.com/flowgate/flowgate.git');
  assert.is(manifest.type, 'module');
  assert.is(manifest.bin.flowgate, 'dist/composition/cli/main.js');
  const readme = await readFile(join(project, 'node_modules', 'flowgate', 'README.md'), 'utf8');
  assert.match(readme, /ESM only/);
  assert.match(readme, /Node\.js 22\.13 or later/);
});

pkg('every link of the README and docs resolves inside the package, or is an absolute https address', async ({ project }) => {
  const root = join(project, 'node_modules', 'flowgate');
  const pages = ['README.md', ...(await readdir(join(root, 'docs'))).filter((page) => page.endsWith('.md')).map((page) => `docs/${page}`)];
  const broken: string[] = [];
  for (const page of pages) {
    const markdown = (await readFile(join(root, page), 'utf8')).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of markdown.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target!.startsWith('#')) continue;
      if (/^[a-z]+:/i.test(target!)) {
        if (!target!.startsWith('https://')) broken.push(`${page}: ${target}`);
        continue;
      }
      const file = resolve(dirname(join(root, page)), target!.split('#')[0]!);
      if (!file.startsWith(root) || !existsSync(file)) broken.push(`${page}: ${target} (${relative(root, file)})`);
    }
  }
  assert.equal(broken, []);
});

pkg('the embedded use installs without the Temporal worker, the S3 client, the tracing SDK or TypeScript', async ({ project }) => {
  const tracing = ['@opentelemetry/sdk-trace-base', '@opentelemetry/exporter-trace-otlp-http', '@temporalio/interceptors-opentelemetry'];
  for (const name of ['@temporalio/worker', '@temporalio/workflow', '@temporalio/activity', '@temporalio/core-bridge', '@aws-sdk/client-s3', 'typescript', ...tracing]) {
    assert.not.ok(existsSync(join(project, 'node_modules', name)), `${name} is not installed`);
  }
});

pkg('npx flowgate serve: the TypeScript workflow with its two steps, over HTTP, with no loader flag and no typescript package', async (context) => {
  const server = startUntil(context, [join(context.project, 'node_modules', '.bin', 'flowgate'), 'serve', '--port', '0'], 'stderr', /serving on (http:\/\/127\.0\.0\.1:\d+)/);
  const url = await server.ready;
  try {
    const list = await request(`${url}/workflow/list`);
    const { workflows } = (await list.body.json()) as { workflows: { name: string; description: string; inputSchema: unknown }[] };
    assert.equal(
      workflows.map(({ name, description }) => ({ name, description })),
      [{ name: 'renewal', description: 'Charges a subscription when its trial ends, then sends the receipt' }],
    );
    assert.type(workflows[0]!.inputSchema, 'object', 'the workflow\'s input schema, as the catalog publishes it');
    const response = await request(`${url}/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'renewal', input: { customerId: 'c-1', amountCents: 990 } }),
    });
    const result = (await response.body.json()) as { status: string; output: unknown };
    assert.is(response.statusCode, 200);
    assert.equal([result.status, result.output], ['completed', { chargeId: 'ch_c-1_990', receiptSent: true }]);
  } finally {
    server.child.kill('SIGTERM');
  }
  assert.is(await server.exited, 0, server.output.stderr);
});

// What `npm init -y` and a first workflow give: npm 11 writes `"type": "commonjs"`, which makes Node load `.ts` and
// `.js` files as CommonJS; flowgate loads workflow and step files as ES modules all the same. On the pinned Node 22
// (the oldest supported line) too, where a workflow loaded as CommonJS could not require() flowgate.
const NPM_INIT_PROJECT_FILES = new Map([
  [
    'steps/greeting.ts',
    `import { step } from 'flowgate';

export const composeGreeting = step({
  name: 'compose_greeting',
  fn: async ({ name }: { name: string }) => ({ greeting: \`Hello, \${name}!\` }),
});
`,
  ],
  [
    'workflows/greet.ts',
    `import { z } from 'zod';
import { workflow } from 'flowgate';
import { composeGreeting } from '../steps/greeting.js';

export const greet = workflow({
  name: 'greet',
  description: 'Greets someone',
  inputSchema: z.object({ name: z.string() }),
  outputSchema: z.object({ greeting: z.string() }),
  fn: async ({ name }) => composeGreeting({ name }),
});
`,
  ],
  [
    'workflows/farewell.js',
    `import { z } from 'zod';
import { workflow } from 'flowgate';

export const farewell = workflow({
  name: 'farewell',
  description: 'Says goodbye',
  inputSchema: z.object({ name: z.string() }),
  outputSchema: z.object({ farewell: z.string() }),
  fn: async ({ name }) => ({ farewell: \`Goodbye, \${name}.\` }),
});
`,
  ],
]);

pkg('a project made by npm init -y ("type": "commonjs"): flowgate serve serves its .ts workflow with its step and its .js workflow, on Node 24 and on Node 22', async (context) => {
  const project = join(context.work, 'npm-init-project');
  await mkdir(project);
  const initialised = await run(context, 'npm', ['init', '-y'], { cwd: project });
  assert.is(initialised.code, 0, initialised.stderr);
  const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as { type?: string };
  assert.is(manifest.type, 'commonjs', 'npm 11\'s `npm init -y` writes "type": "commonjs"');
  const installed = await run(context, 'npm', ['install', context.tarball, `zod@${ownManifest.dependencies.zod}`, '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: project,
    timeoutMs: 180_000,
  });
  assert.is(installed.code, 0, installed.stderr);
  await writeProjectFiles(project, NPM_INIT_PROJECT_FILES);
  for (const node of [process.execPath, await ensureNodeRuntime('22', { log: () => {} })]) {
    const flowgate = [join(project, 'node_modules', '.bin', 'flowgate'), 'serve', '--port', '0'];
    const server = startUntil(context, flowgate, 'stderr', /serving on (http:\/\/127\.0\.0\.1:\d+)/, {}, { cwd: project, node });
    try {
      const url = await server.ready;
      const outputs: unknown[] = [];
      for (const [workflowName, input] of [['greet', { name: 'Ada' }], ['farewell', { name: 'Ada' }]] as const) {
        const response = await request(`${url}/workflow/run`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ workflowName, input }),
        });
        const result = (await response.body.json()) as { status: string; output: unknown; workflowId: string };
        assert.is(response.statusCode, 200, JSON.stringify(result));
        assert.is(result.status, 'completed', JSON.stringify(result));
        outputs.push(result.output);
        if (workflowName === 'greet') {
          // The step ran as a step of the run (found in its module and registered by name), not as a plain call.
          const history = (await (await request(`${url}/workflow/${result.workflowId}/history`)).body.json()) as { events: { type: string; stepName?: string }[] };
          assert.equal(history.events.filter(({ type }) => type === 'step_completed').map(({ stepName }) => stepName), ['compose_greeting']);
        }
      }
      assert.equal(outputs, [{ greeting: 'Hello, Ada!' }, { farewell: 'Goodbye, Ada.' }], `on ${node}`);
    } finally {
      server.child.kill('SIGTERM');
    }
    assert.is(await server.exited, 0, server.output.stderr);
  }
});

pkg('npx flowgate worker (and dev, before any Temporal dev server starts) without the worker\'s packages: one line naming them, exit 1', async (context) => {
  const bin = join(context.project, 'node_modules', '.bin', 'flowgate');
  for (const command of ['worker', 'dev']) {
    const answer = await run(context, bin, [command], { cwd: context.project, env: { TEMPORAL_ADDRESS: '127.0.0.1:1' } });
    assert.is(answer.code, 1, command);
    assert.is(
      answer.stderr,
      `flowgate ${command}: The Temporal worker needs @temporalio/worker, @temporalio/workflow, @temporalio/activity, which are not installed: npm install @temporalio/worker @temporalio/workflow @temporalio/activity\n`,
    );
  }
});

const oldNode = unsupportedMachineNode();

whenUnsupportedNodeExpected(pkg, oldNode)('on the machine\'s Node 20: npx flowgate and the bin under node say in one line on stderr which Node they need, exit 2', async (context) => {
  assert.ok(oldNode, 'no Node older than 22.13 on this machine (neither on PATH outside ~/.cache/flowgate nor /usr/local/bin/node)');
  const expected = `flowgate needs Node.js 22.13 or later; this is Node.js ${oldNode.version}\n`;
  const onOldNode = { PATH: pathWithFirst(dirname(oldNode.path)) };
  const npx = await run(context, 'npx', ['flowgate', '--version'], { cwd: context.project, env: onOldNode });
  assert.equal(npx, { code: 2, stdout: '', stderr: expected });
  const serve = await run(context, oldNode.path, [join('node_modules', '.bin', 'flowgate'), 'serve', '--port', '0'], { cwd: context.project, env: onOldNode });
  assert.equal(serve, { code: 2, stdout: '', stderr: expected });
});

pkg('the public types: tsc --noEmit over the workflow, steps, embedding and tests, strict, libraries checked too', async (context) => {
  const tools = await run(context, 'npm', ['install', '--save-dev', ...DEV_TOOLS, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: context.project, timeoutMs: 360_000 });
  assert.is(tools.code, 0, tools.stderr);
  await writeFile(
    join(context.project, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUncheckedIndexedAccess: true, skipLibCheck: false, types: ['node'], outDir: 'build', noEmit: true },
      include: ['workflows', 'steps', 'test', 'embed.ts', 'client.ts'],
    }),
  );
  const checked = await run(context, process.execPath, [join(context.project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: context.project });
  assert.is(checked.code, 0, checked.stdout + checked.stderr);
});

/** The flags of the strictest projects beyond `tsc --init`'s (which has strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess). */
const STRICTEST_FLAGS = {
  strict: true,
  exactOptionalPropertyTypes: true,
  noUncheckedIndexedAccess: true,
  noImplicitOverride: true,
  noPropertyAccessFromIndexSignature: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  noUnusedLocals: true,
  noUnusedParameters: true,
  allowUnusedLabels: false,
  allowUnreachableCode: false,
  forceConsistentCasingInFileNames: true,
  // The package's own declarations are checked under these flags too.
  skipLibCheck: false,
};

pkg('every TypeScript example of the docs compiles, with tsc --init\'s defaults and with the strictest flags', async (context) => {
  const examples = await docsTypeScriptExamples();
  const compiled = examples.filter((example) => example.kind !== 'fragment');
  assert.ok(compiled.length >= 14, `${compiled.length} examples to compile`);
  // The frameworks the embedding examples use, and the verifier of docs/callbacks.md, at the versions this repository locks.
  const frameworks = ['express', '@types/express', 'fastify', 'hono', '@hono/node-server', 'standardwebhooks'].map((name) => `${name}@${ownManifest.devDependencies[name]}`);
  const installed = await run(context, 'npm', ['install', '--save-dev', ...frameworks, '--prefer-offline', '--no-audit', '--no-fund'], { cwd: context.project, timeoutMs: 360_000 });
  assert.is(installed.code, 0, installed.stderr);
  // The docs' sample project (every file= block) with each whole example beside it, as its own module.
  const dir = join(context.project, 'docs-examples');
  await mkdir(dir);
  const written = new Map<string, DocsExample>();
  for (const example of compiled) {
    const earlier = written.get(example.path);
    if (earlier && earlier.code !== example.code) assert.unreachable(`${example.where} and ${earlier.where} are both ${example.path}, differently`);
    written.set(example.path, example);
    await mkdir(dirname(join(dir, example.path)), { recursive: true });
    await writeFile(join(dir, example.path), example.code);
  }
  const tsc = join(context.project, 'node_modules', 'typescript', 'bin', 'tsc');
  const init = await run(context, process.execPath, [tsc, '--init'], { cwd: dir });
  assert.is(init.code, 0, init.stdout + init.stderr);
  // tsc --init leaves Node's types out and says, in the file, to add them for Node: the one change made to it.
  const generated = await readFile(join(dir, 'tsconfig.json'), 'utf8');
  assert.match(generated, /"types": \[\],/);
  assert.match(generated, /"exactOptionalPropertyTypes": true/);
  await writeFile(join(dir, 'tsconfig.json'), generated.replace('"types": [],', '"types": ["node"],'));
  await writeFile(join(dir, 'tsconfig.strictest.json'), JSON.stringify({ extends: './tsconfig.json', compilerOptions: { ...STRICTEST_FLAGS, noEmit: true } }, null, 2));
  // Which example an error is in, by its file.
  const explain = (output: string) =>
    output.replace(/^([^\s(]+\.ts)\(/gm, (whole, file: string) => {
      const example = written.get(file);
      return example ? `${example.where} (${file})(` : whole;
    });
  const strictest = await run(context, process.execPath, [tsc, '-p', 'tsconfig.strictest.json'], { cwd: dir });
  assert.is(strictest.code, 0, `the strictest flags:\n${explain(strictest.stdout + strictest.stderr)}`);
  // tsc as `tsc --init` set it up, emitting (declarations included: an exported value's type must be nameable).
  const defaults = await run(context, process.execPath, [tsc, '-p', '.'], { cwd: dir });
  assert.is(defaults.code, 0, `tsc --init's defaults:\n${explain(defaults.stdout + defaults.stderr)}`);
});

pkg('the embedding of docs/embedding.md and the client script of docs/client.md, compiled with tsc and run: the API under /flows beside the app\'s own route', async (context) => {
  const compiled = await run(context, process.execPath, [join(context.project, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.', '--noEmit', 'false'], { cwd: context.project });
  assert.is(compiled.code, 0, compiled.stdout + compiled.stderr);
  const app = startUntil(context, ['build/embed.js'], 'stdout', /listening on (http:\/\/127\.0\.0\.1:\d+)/, { PORT: '0' });
  const url = await app.ready;
  try {
    assert.equal(await (await request(`${url}/own`)).body.json(), { servedBy: 'my-app' });
    const response = await request(`${url}/flows/workflow/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ workflowName: 'renewal', input: { customerId: 'c-2', amountCents: 100 } }),
    });
    assert.is(response.statusCode, 200);
    assert.equal(((await response.body.json()) as { output: unknown }).output, { chargeId: 'ch_c-2_100', receiptSent: true });
    const missing = await request(`${url}/flows/nothing`);
    assert.is(missing.statusCode, 404);
    assert.is(((await missing.body.json()) as { message: string }).message, 'No endpoint at /flows/nothing.');
    // docs/client.md's script, through flowgate/client, against the API under its prefix.
    const client = await run(context, process.execPath, ['build/client.js'], { cwd: context.project, env: { FLOWGATE_URL: `${url}/flows` } });
    assert.is(client.code, 0, client.stdout + client.stderr);
    const lines = client.stdout.trim().split('\n');
    assert.is(lines[0], 'charged ch_c-7_1200');
    assert.match(lines[1]!, /^1 workflow_started$/);
    assert.ok(lines.includes('done: completed'), client.stdout);
    assert.match(lines.at(-1)!, /^404 WorkflowNotFoundError \(request [0-9a-f-]{36}\)$/);
  } finally {
    app.child.kill('SIGTERM');
  }
  await app.exited;
});

pkg('flowgate/testing: docs/testing.md\'s node:test and uvu files, run with the commands it shows', async (context) => {
  const markdown = await readFile(join(ROOT, 'docs', 'testing.md'), 'utf8');
  const commands = [...markdown.matchAll(/```sh\n(node [^\n]+)\n```/g)].map((match) => match[1]!.split(' '));
  assert.equal(commands.map((command) => command.at(-1)), ['test/renewal.test.ts', 'test/renewal.uvu.ts']);
  const [nodeTest, uvu] = await Promise.all(commands.map(([, ...args]) => run(context, process.execPath, args, { cwd: context.project })));
  assert.is(nodeTest!.code, 0, nodeTest!.stdout + nodeTest!.stderr);
  // node:test's default reporter when not on a terminal: TAP (`# pass 2`) on Node 22, spec (`ℹ pass 2`, coloured
  // under uvu's FORCE_COLOR) on 24.
  const nodeTestSummary = withoutColours(nodeTest!.stdout);
  assert.match(nodeTestSummary, /^[#ℹ] pass 2\n/m, nodeTestSummary);
  assert.match(nodeTestSummary, /^[#ℹ] fail 0\n/m, nodeTestSummary);
  assert.is(uvu!.code, 0, uvu!.stdout + uvu!.stderr);
  assert.match(withoutColours(uvu!.stdout), /Passed:\s+2\n/);
});

pkg.run();
