/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: string;
  /** The event's `id:`, when it had one. */
  id: string | undefined;
}

/**
 * Incremental parser of a `text/event-stream` body (the WHATWG rules the API's framing uses: `event:`, `id:`,
 * `data:` lines, comments, a blank line ends an event). Feed it text as it arrives; it returns the whole events.
 * Pure and free of Node and DOM types, so the client (follow.ts) and the browser UI (ui/src/sse.ts) share it; neither
 * can use EventSource, which sends no Authorization header.
 */
export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];
  private id: string | undefined;

  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      // A lone \r at the end may be the first half of \r\n: wait for more.
      if (!match || (match[0] === '\r' && match.index === this.buffer.length - 1)) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      const complete = this.line(line);
      if (complete) events.push(complete);
    }
    return events;
  }

  private line(line: string): SseEvent | undefined {
    if (line === '') {
      if (this.data.length === 0) {
        this.event = '';
        this.id = undefined;
        return undefined;
      }
      const complete = { event: this.event || 'message', data: this.data.join('\n'), id: this.id };
      this.event = '';
      this.data = [];
      this.id = undefined;
      return complete;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    else if (field === 'id' && !value.includes('\0')) this.id = value;
    return undefined;
  }
}
