import type { HistoryEvent } from '../../../core/domain/history.js';
import { h } from '../dom.js';
import { runHref } from '../routes.js';
import type { Router } from '../router.js';

/** Links to the runs a run's history names: its parent, the continue-as-new chain, a reset's origin, its children. */
export function relatedRuns(router: Router, workflowId: string, events: readonly HistoryEvent[]): HTMLElement[] {
  const links: HTMLElement[] = [];
  const item = (label: string, href: string, text: string) => links.push(h('li', {}, `${label} `, router.link(href, {}, text)));
  for (const event of events) {
    const attributes = event.attributes;
    const text = (name: string) => (typeof attributes[name] === 'string' ? (attributes[name] as string) : undefined);
    if (event.type === 'workflow_started') {
      const parent = text('parentWorkflowId');
      if (parent) item('Parent:', runHref(parent), parent);
      const previous = text('continuedFromRunId');
      if (previous) item('Continued from run', runHref(workflowId, previous), previous);
      const origin = text('resetFromRunId');
      if (origin) item('Reset from run', runHref(workflowId, origin), origin);
    } else if (event.type === 'workflow_reset') {
      const origin = text('resetFromRunId');
      if (origin && !links.some((link) => link.textContent?.includes(origin))) item('Reset from run', runHref(workflowId, origin), origin);
    } else if (event.type === 'workflow_continued_as_new') {
      const next = text('newRunId');
      if (next) item('Continued as new in run', runHref(workflowId, next), next);
    } else if (event.type === 'child_started') {
      const child = text('childWorkflowId');
      const childRun = text('childRunId');
      if (child && childRun) item(`Child ${text('workflowName') ?? ''}:`, runHref(child, childRun), child);
    }
  }
  if (links.length === 0) return [];
  return [h('h2', { class: 'visually-hidden' }, 'Related runs'), h('ul', {}, ...links)];
}
