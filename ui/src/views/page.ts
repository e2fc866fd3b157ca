import type { Api } from '../api.js';
import type { Notices } from '../notices.js';
import type { Router } from '../router.js';

/** What every page gets. */
export interface PageEnv {
  api: Api;
  router: Router;
  notices: Notices;
}

/** A rendered page; destroy() stops its streams and timers when the user goes elsewhere. */
export interface Page {
  element: HTMLElement;
  /** Focused after navigation, so keyboard and screen-reader users start at the page's heading. */
  focusTarget: HTMLElement;
  destroy(): void;
}
