import type { MetricsExposition } from '../../ports/metrics.js';

/** Another exposition's text in Prometheus' text format, from the same process (a Temporal worker's SDK metrics). */
export interface ExpositionSource {
  /** Named in the comment that stands in for the text when it cannot be read. */
  readonly name: string;
  text(): Promise<string>;
}

/**
 * One scrape of flowgate's own metrics followed by others' (their metric names must not collide: flowgate's are
 * `flowgate_*`, Temporal's SDK's `temporal_*`). A source that fails leaves a comment, not a failed scrape: the
 * process's own metrics still reach the scraper, and the comment says what is missing.
 */
export class CombinedExposition implements MetricsExposition {
  readonly contentType: string;

  constructor(
    private readonly own: MetricsExposition,
    private readonly sources: readonly ExpositionSource[],
  ) {
    this.contentType = own.contentType;
  }

  async exposition(): Promise<string> {
    const texts = await Promise.all([
      this.own.exposition(),
      ...this.sources.map((source) =>
        source.text().catch((error: unknown) => `# ${source.name} metrics could not be read: ${oneLine(error)}\n`),
      ),
    ]);
    return texts.map((text) => (text.endsWith('\n') || text === '' ? text : `${text}\n`)).join('');
  }
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
}
