// docs/performance.md is one report of every figure. A run of some figures (BENCH_ONLY) replaces those figures'
// sections in it and keeps the others as they were measured, so a figure can be measured again on its own (a long
// figure on a quiet machine, a new figure beside the old ones) without measuring all of them again.

/** One `## Figure N...` section: its heading line and everything up to the next `## ` heading. */
export interface FigureSection {
  /** `1`, `1b`, `10`: what the heading names after "Figure ". */
  id: string;
  text: string;
}

const FIGURE_HEADING = /^## Figure (\d+[a-z]?):/;

export function figureId(title: string): string {
  const match = /^Figure (\d+[a-z]?):/.exec(title);
  if (!match) throw new Error(`a figure's title starts with "Figure N:": ${title}`);
  return match[1]!;
}

/**
 * The report's figure sections, and what is not one of them: the text before the first figure (`head`) and from the
 * first `## ` heading after the last figure on (`tail`: the hand-written notes).
 */
export function splitReport(report: string): { head: string; sections: FigureSection[]; tail: string } {
  const lines = report.split('\n');
  let head = '';
  const sections: FigureSection[] = [];
  let tail = '';
  let current: FigureSection | undefined;
  let inTail = false;
  for (const line of lines) {
    const figure = FIGURE_HEADING.exec(line);
    if (!inTail && figure) {
      current = { id: figure[1]!, text: `${line}\n` };
      sections.push(current);
    } else if (!inTail && line.startsWith('## ') && current) {
      inTail = true;
      tail = `${line}\n`;
    } else if (inTail) {
      tail += `${line}\n`;
    } else if (current) {
      current.text += `${line}\n`;
    } else {
      head += `${line}\n`;
    }
  }
  return { head, sections, tail: tail.replace(/\n$/, '') };
}

/** Figures in numeric order (1, 1b, 2, ..., 10): as the report lists them. */
export function compareFigureIds(a: string, b: string): number {
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * The report with `measured` in place of the sections of the same figures, the others kept, each measured section
 * saying when and in which partial run it was measured (the report's head names the date of the last full run).
 */
export function replaceFigures(report: string, measured: FigureSection[], note: string): string {
  const { head, sections, tail } = splitReport(report);
  const replaced = new Map(sections.map((section) => [section.id, section.text]));
  for (const section of measured) {
    const [heading, ...body] = section.text.replace(/\n+$/, '').split('\n');
    replaced.set(section.id, `${heading}\n\n${note}\n${body.join('\n')}\n\n`);
  }
  const ordered = [...replaced.entries()].sort(([a], [b]) => compareFigureIds(a, b)).map(([, text]) => text);
  return `${head}${ordered.join('')}${tail}`;
}
