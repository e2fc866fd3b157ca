import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { etagOf, matchesEtag } from './etag.js';
import { NotFoundError } from './transportErrors.js';
import type { Logger } from '../../ports/logger.js';
import { firstHeader, type HttpResponse, type RequestHeaders } from './types.js';

/*
 * The browser UI's files (docs/ui.md): the page at /ui and every path below it (deep links such as
 * /ui/runs/{id}/{rid} are the page too; the page routes itself), and its hashed assets at /ui/assets/. Public, like
 * the API description: the page holds no data, and every data call it makes carries the bearer token.
 * Everything is read once at start-up and answered from memory; no request ever touches the file system.
 */

/** Where the UI lives under the API's own paths (and under a mount prefix, below it). */
export const UI_PATH = '/ui';
export const UI_METHODS: readonly string[] = ['GET', 'HEAD'];

/** Replaced in index.html by the relative path from the requested page to the UI's root (see uiRootFrom). */
const ROOT_PLACEHOLDER = '%UI_ROOT%';
const ASSET_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml; charset=utf-8',
};

/**
 * Same-origin only, nothing inline: no inline script or style can run even if data ever reached the DOM as markup,
 * and the page cannot be framed (clickjacking the stop and terminate buttons). Trusted Types forbid HTML sinks
 * outright: the page builds every element through the DOM.
 */
export const UI_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  'trusted-types',
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': UI_CONTENT_SECURITY_POLICY,
  // Run ids in the page's URL stay out of other sites' logs.
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
};

/** Hashed names never change content: a browser keeps them a year. The page itself is revalidated every time. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'no-cache';

interface StaticFile {
  body: string;
  contentType: string;
  etag: string;
}

export interface UiFiles {
  /** Whether a path (without the mount prefix) belongs to the UI. */
  serves(path: string): boolean;
  /** The answer to a GET or HEAD of one of its paths; NotFoundError for an unknown asset or an unbuilt UI. */
  answer(path: string, headers: RequestHeaders): HttpResponse;
}

/**
 * The UI that ships with the package: compiled, this module is dist/adapters/http/ui.js and the UI dist/ui; run from
 * the TypeScript sources (tsx), the build's output in dist/ui next to them.
 */
export function defaultUiDir(): string {
  const fromSources = import.meta.url.endsWith('.ts');
  return fileURLToPath(new URL(fromSources ? '../../dist/ui/' : '../../ui/', import.meta.url));
}

/** Reads the built UI in `dir` (index.html and assets/); one without index.html answers 404 saying how to build it. */
export function loadUiFiles(dir: string, logger: Logger): UiFiles {
  const built = readBuiltUi(dir);
  if (!built) {
    logger.warn('the browser UI is not built: GET /ui answers 404 until `npm run build` writes it', { uiDir: dir });
  }
  return {
    serves: (path) => path === UI_PATH || path.startsWith(`${UI_PATH}/`),
    answer(path, headers) {
      if (!built) throw new NotFoundError('The browser UI is not built: run `npm run build`, which writes dist/ui.');
      const rest = path.slice(UI_PATH.length);
      if (rest.startsWith('/assets/')) {
        const name = rest.slice('/assets/'.length);
        const file = ASSET_NAME.test(name) ? built.assets.get(name) : undefined;
        if (!file) throw new NotFoundError(`No UI asset at ${path}.`);
        return respond(file, IMMUTABLE, headers);
      }
      const body = built.page.split(ROOT_PLACEHOLDER).join(uiRootFrom(rest));
      return respond({ body, contentType: 'text/html; charset=utf-8', etag: etagOf(body) }, REVALIDATE, headers);
    },
  };
}

/**
 * The relative URL from a page path below /ui to the UI's root. Relative, so the page works under any prefix: a
 * mount path the server knows (Express's baseUrl) and a reverse proxy's that it never sees alike. `rest` is the path
 * after `/ui`, still percent-encoded as the browser resolves it (`a%2Fb` is one segment).
 */
export function uiRootFrom(rest: string): string {
  if (rest === '') return 'ui/';
  const depth = rest.split('/').length - 2;
  return depth === 0 ? './' : '../'.repeat(depth);
}

function respond(file: StaticFile, cacheControl: string, headers: RequestHeaders): HttpResponse {
  const common = { ...SECURITY_HEADERS, etag: file.etag, 'cache-control': cacheControl };
  if (matchesEtag(firstHeader(headers, 'if-none-match'), file.etag)) return { status: 304, headers: common, body: null };
  return { status: 200, headers: { ...common, 'content-type': file.contentType }, body: file.body };
}

function readBuiltUi(dir: string): { page: string; assets: Map<string, StaticFile> } | undefined {
  const indexPath = join(dir, 'index.html');
  if (!existsSync(indexPath)) return undefined;
  const assets = new Map<string, StaticFile>();
  const assetsDir = join(dir, 'assets');
  const names = existsSync(assetsDir) ? readdirSync(assetsDir) : [];
  for (const name of names) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (!contentType || !ASSET_NAME.test(name)) continue;
    const body = readFileSync(join(assetsDir, name), 'utf8');
    assets.set(name, { body, contentType, etag: etagOf(body) });
  }
  return { page: readFileSync(indexPath, 'utf8'), assets };
}
