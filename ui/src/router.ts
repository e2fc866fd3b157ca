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

  link(href: string, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLAnchorElement {
    const anchor = h('a', { ...attributes, href: this.url(href) }, ...children);
    anchor.addEventListener('click', (event) => {
      if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
      event.preventDefault();
      this.navigate(href);
    });
    return anchor;
  }

  private emit(): void {
    this.rendered = location.pathname + location.search;
    const route = this.current();
    for (const listener of this.listeners) listener(route);
  }
}
