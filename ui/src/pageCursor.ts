/**
 * Where a list paged by the API's page tokens stands: the token of the page shown, the next page's, and the tokens of
 * the pages before it (going back walks through them). Pure: no DOM, so tests/unit checks it.
 */
export class PageCursor {
  /** The token of the page shown; undefined for the first page. */
  current: string | undefined;
  private next: string | null = null;
  private readonly earlier: (string | undefined)[] = [];

  get hasPrevious(): boolean {
    return this.earlier.length > 0;
  }

  get hasNext(): boolean {
    return this.next !== null;
  }

  /** The page shown answered with this `nextPageToken`. */
  received(nextPageToken: string | null): void {
    this.next = nextPageToken;
  }

  /** Back to the first page (the filters changed). */
  reset(): void {
    this.earlier.length = 0;
    this.current = undefined;
    this.next = null;
  }

  /** To the next page; false when there is none. */
  forward(): boolean {
    if (this.next === null) return false;
    this.earlier.push(this.current);
    this.current = this.next;
    return true;
  }

  /** To the page before; false on the first page. */
  back(): boolean {
    if (this.earlier.length === 0) return false;
    this.current = this.earlier.pop();
    return true;
  }
}
