import { Api } from './api.js';
import { h, replaceChildren } from './dom.js';
import { Notices } from './notices.js';
import type { Route } from './routes.js';
import { Router } from './router.js';
import { TokenKeeper } from './token.js';
import type { Page, PageEnv } from './views/page.js';
import { KeyAccess } from './keyAccess.js';
import { latestRunPage, runPage } from './views/runPage.js';
import { runsListPage } from './views/runsList.js';
import { schedulePage } from './views/schedulePage.js';
import { schedulesListPage } from './views/schedulesList.js';
import { startPage } from './views/startPage.js';

/*
 * The browser UI of flowgate (docs/ui.md). It finds its place from its own URL: this script is …/ui/assets/app-*.js,
 * the UI's root is …/ui/ and the API's is everything before /ui, so the page works under any mount prefix.
 */
const root = new URL('../', import.meta.url);
const apiBase = new URL('../', root);

// The page's links to its files are relative to the address it was loaded at; navigating changes the address, and
// the browser resolves the icon again against the new one. Pinned to absolute URLs now, they stay right.
for (const link of document.querySelectorAll<HTMLLinkElement>('head link[href]')) link.setAttribute('href', link.href);

const tokens = new TokenKeeper();
const router = new Router(root);
const notices = new Notices();
const api = new Api(apiBase, tokens);
const env: PageEnv = { api, access: new KeyAccess(api, tokens), router, notices };

const forget = h('button', { type: 'button', class: 'secondary small' }, 'Forget token');
forget.addEventListener('click', () => {
  tokens.forget();
  notices.show('The token is forgotten; the next call asks for it again.', 'ok');
});
const enter = h('button', { type: 'button', class: 'secondary small' }, 'Enter token');
enter.addEventListener('click', () => {
  tokens.allowPrompt();
  router.start();
});
const showTokenState = () => {
  forget.hidden = tokens.get() === null;
  enter.hidden = !tokens.declined;
};
tokens.onChange(showTokenState);
showTokenState();

const header = document.getElementById('app-header') ?? h('header');
replaceChildren(
  header,
  router.link('', { class: 'brand' }, 'flowgate'),
  h(
    'nav',
    { 'aria-label': 'Main' },
    h('ul', {}, h('li', {}, router.link('runs', {}, 'Runs')), h('li', {}, router.link('start', {}, 'Start a run')), h('li', {}, router.link('schedules', {}, 'Schedules'))),
  ),
  h('div', { class: 'token-buttons' }, enter, forget),
);
const main = document.getElementById('main') ?? document.body.appendChild(h('main', { id: 'main' }));

let page: Page | undefined;
let navigations = 0;

function show(route: Route): void {
  page?.destroy();
  notices.navigated();
  page = pageFor(route);
  replaceChildren(main, notices.element, page.element);
  document.title = titleOf(route);
  const section = navSectionOf(route);
  for (const link of header.querySelectorAll('nav a')) {
    const current = section !== undefined && link.getAttribute('href') === router.url(section);
    if (current) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // After the first page, move focus to the new page's heading, as a page load would for a screen reader.
  if (navigations > 0) page.focusTarget.focus();
  navigations += 1;
}

/** The nav link of the page shown, when it is one of the lists or the start form. */
function navSectionOf(route: Route): string | undefined {
  if (route.page === 'runs' || route.page === 'start' || route.page === 'schedules') return route.page;
  return undefined;
}

function pageFor(route: Route): Page {
  switch (route.page) {
    case 'runs':
      return runsListPage(env, route.query);
    case 'run':
      return route.runId === undefined ? latestRunPage(env, route.workflowId) : runPage(env, route.workflowId, route.runId);
    case 'start':
      return startPage(env, route);
    case 'schedules':
      return schedulesListPage(env, route.query);
    case 'schedule':
      return schedulePage(env, route.scheduleId);
    case 'not-found': {
      const title = h('h1', { tabindex: -1 }, 'Not found');
      return { element: h('section', {}, title, h('p', {}, 'No page here. '), router.link('runs', {}, 'See the runs')), focusTarget: title, destroy() {} };
    }
  }
}

function titleOf(route: Route): string {
  if (route.page === 'run') return `${route.workflowId} · flowgate`;
  if (route.page === 'start') return 'Start a run · flowgate';
  if (route.page === 'schedules') return 'Schedules · flowgate';
  if (route.page === 'schedule') return `${route.scheduleId} · schedule · flowgate`;
  if (route.page === 'not-found') return 'Not found · flowgate';
  return 'Runs · flowgate';
}

router.interceptLinks(document);
router.onChange(show);
router.start();
