import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite, type Test } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { buildUi } from '../../../scripts/buildUi.mjs';
import { CHROMIUM_ARGS, ensureChromium } from '../../../scripts/infra/index.mjs';
import { engineUnderTest, startTestApi, type TestApi } from '../../support/engines.js';
import { call } from '../../support/http.js';
import type { TestCatalog } from '../../support/fixtureCatalogs.js';
import { startPrefixProxy, type PrefixProxy } from './prefixProxy.js';

/*
 * The browser suite's harness: a real API on the engine under test (FLOWGATE_TEST_ENGINE) with the `ui` catalog,
 * reached by Chromium through a prefix-stripping proxy (so every test also proves the page works under a prefix
 * the server never sees), and the UI built from ui/ first, as `npm run build` does.
 */

const root = fileURLToPath(new URL('../../../', import.meta.url));
const fixture = (path: string): string => join(root, 'tests', 'fixtures', path);

export const UI_CATALOG: TestCatalog = {
  catalog: 'ui',
  modules: [fixture('workflows/basic.ts'), fixture('workflows/ui.ts')],
  hookFiles: [fixture('hooks/uiHooks.ts')],
  reuseBundle: true,
};
export const PREFIX = '/behind/a/proxy';

/** Screenshots go here (docs/ui.md shows a set of them, copied into docs/images/ui). */
export const SCREENSHOT_DIR = process.env.FLOWGATE_UI_SCREENSHOTS ?? join(root, 'coverage', 'ui-screenshots', engineUnderTest());

let uiBuilt: Promise<unknown> | undefined;
let chromiumPath: Promise<string> | undefined;

export interface UiContext {
  api: TestApi;
  proxy: PrefixProxy;
  browser: Browser;
  /** The UI's root as the browser reaches it: `<proxy>/behind/a/proxy/ui/`. */
  ui: string;
  startError?: unknown;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors (a CSP violation is one), page errors, and answers ≥ 400 as `HTTP 404 GET /path`. */
  problems: string[];
}

/** A uvu suite with the API, proxy and browser started before and always stopped after, even when tests failed. */
export function uiSuite(name: string, env: Record<string, string> = {}): Test<UiContext> {
  const test = suite<UiContext>(name, {} as UiContext);
  test.before(async (context) => {
    try {
      uiBuilt ??= buildUi();
      chromiumPath ??= ensureChromium();
      await uiBuilt;
      context.api = await startTestApi({ DEFAULT_CATALOG: 'ui', ...env }, { catalogs: [UI_CATALOG] });
      context.proxy = await startPrefixProxy(context.api.baseUrl, PREFIX);
      context.browser = await chromium.launch({ executablePath: await chromiumPath, args: [...CHROMIUM_ARGS] });
      context.ui = `${context.proxy.url}/ui/`;
    } catch (error) {
      context.startError = error;
    }
  });
  test.before.each((context) => {
    if (context.startError !== undefined) {
      throw new Error(`the browser suite could not start: ${context.startError instanceof Error ? context.startError.message : String(context.startError)}`);
    }
  });
  test.after(async (context) => {
    // Nothing the suite started stays open (on Temporal the dev server is shared with the suites after this one).
    const headers: Record<string, string> = env.API_AUTH_TOKEN ? { authorization: `Bearer ${env.API_AUTH_TOKEN}` } : {};
    if (context.api) await call(context.api, 'POST', '/workflow/runs/terminate', { json: { catalog: 'ui', reason: 'browser suite done' }, headers }).catch(() => {});
    await context.browser?.close();
    await context.proxy?.close();
    await context.api?.close();
  });
  return test;
}

/** A fresh browser context (its own sessionStorage) and page at `path` below the UI's root. */
export async function openUi(context: UiContext, path = '', options: { viewport?: { width: number; height: number } } = {}): Promise<OpenedPage> {
  const browserContext = await context.browser.newContext({ viewport: options.viewport ?? { width: 1200, height: 800 }, colorScheme: 'light', locale: 'en-GB', timezoneId: 'UTC' });
  browserContext.setDefaultTimeout(20_000);
  const page = await browserContext.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    // A failed load is reported below with its URL; the console's own line about it names none.
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()} ${response.request().method()} ${new URL(response.url()).pathname}`);
  });
  await page.goto(`${context.ui}${path}`);
  return { context: browserContext, page, problems };
}

/**
 * Asserts the page met no problem but the `expected` ones. On Temporal a terminated run has no trace (docs/api.md),
 * so the page's trace-log read is a 404 it shows as a note: pass NO_TRACE_ON_TEMPORAL where a run is terminated.
 */
export function assertNoProblems(problems: readonly string[], expected: readonly RegExp[] = []): void {
  assert.equal(problems.filter((problem) => !expected.some((pattern) => pattern.test(problem))), []);
}
export const NO_TRACE_ON_TEMPORAL = /^HTTP 404 GET \/.*\/trace-log$/;

export async function screenshot(page: Page, name: string): Promise<void> {
  const path = join(SCREENSHOT_DIR, `${name}.png`);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, await page.screenshot({ fullPage: true, animations: 'disabled' }));
}

