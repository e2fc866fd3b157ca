import type { KeyAccess } from '../keyAccess.js';
import type { Api } from '../api.js';
import type { Notices } from '../notices.js';
import type { Router } from '../router.js';

/** What every page gets. */
export interface PageEnv {
  api: Api;
  /** What the key in use may do: the pages offer only the actions it allows. */
  access: KeyAccess;
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
