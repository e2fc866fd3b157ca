import { h } from './dom.js';
import { parseRoute, type Route } from './routes.js';

/**
 * History-API navigation inside the UI. Links are real `<a href>` elements (open in a new tab, copy, keyboard), and
 * a plain click is handled here without reloading the page.
 */
export class Router {
  private readonly listeners: ((route: Route) => void)[] = [];
  /** Path and query last rendered: a change of the fragment alone (the skip link) is not a navigation. */
  private rendered = '';

  /** `root`: the UI's root URL, `…/ui/`. */
  constructor(readonly root: URL) {
    window.addEventListener('popstate', () => {
      if (location.pathname + location.search !== this.rendered) this.emit();
    });
  }

  onChange(listener: (route: Route) => void): void {
    this.listeners.push(listener);
  }

  current(): Route {
    const rootPath = this.root.pathname;
    const path = location.pathname.startsWith(rootPath) ? location.pathname.slice(rootPath.length) : '';
    return parseRoute(path, location.search);
  }

  /** The absolute URL of a page, from its href relative to the root (`runs/a/b`). */
  url(href: string): string {
    return new URL(href, this.root).href;
  }

  navigate(href: string, options: { replace?: boolean } = {}): void {
    const url = this.url(href);
    if (options.replace) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
    this.emit();
  }

  /** Changes the address without rendering again (filters written back to the URL). */
  replaceQuietly(href: string): void {
    history.replaceState(null, '', this.url(href));
    this.rendered = location.pathname + location.search;
  }

  /** Renders the page the address names now (at start-up, or again after the token changed). */
  start(): void {
    this.emit();
  }

  /** A link inside the UI; a plain click on it navigates without a reload (one listener on the document). */
  link(href: string, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLAnchorElement {
    return h('a', { ...attributes, href: this.url(href), 'data-route': href }, ...children);
  }

  /** Handles plain clicks on every link made by link(), present or future: a thousand rows need no thousand listeners. */
  interceptLinks(root: Document | HTMLElement): void {
    root.addEventListener('click', (event) => {
      const mouse = event as MouseEvent;
      if (mouse.defaultPrevented || mouse.button !== 0 || mouse.metaKey || mouse.ctrlKey || mouse.shiftKey || mouse.altKey) return;
      const anchor = (mouse.target as Element | null)?.closest?.('a[data-route]');
      const href = anchor?.getAttribute('data-route');
      if (href === null || href === undefined) return;
      mouse.preventDefault();
      this.navigate(href);
    });
  }

  private emit(): void {
    this.rendered = location.pathname + location.search;
    const route = this.current();
    for (const listener of this.listeners) listener(route);
  }
}
