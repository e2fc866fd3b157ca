import type { CatalogMemo, CatalogPublication } from '../protocol.js';

/**
 * A worker's publication replaces the catalog's workflows (the newest worker wins, as on the embedded engine) and
 * marks it online. `publishedAt` moves only when the content changes, so a rolling restart of identical workers
 * does not look like a new catalog: content is compared, not where it came from.
 */
export function catalogAfterPublication(memo: CatalogMemo, publication: CatalogPublication, now: string): CatalogMemo {
  const changed = JSON.stringify(memo.workflows) !== JSON.stringify(publication.workflows);
  const onlineWorkers = memo.onlineWorkers.includes(publication.workerIdentity)
    ? memo.onlineWorkers
    : [...memo.onlineWorkers, publication.workerIdentity];
  return { ...memo, workflows: changed ? publication.workflows : memo.workflows, onlineWorkers, publishedAt: changed ? now : memo.publishedAt };
}

/** A worker said goodbye; the content stays, so the catalog is known-but-unavailable once the last one leaves. */
export function catalogAfterOffline(memo: CatalogMemo, workerIdentity: string | undefined): CatalogMemo {
  if (workerIdentity === undefined || !memo.onlineWorkers.includes(workerIdentity)) return memo;
  return { ...memo, onlineWorkers: memo.onlineWorkers.filter((identity) => identity !== workerIdentity) };
}

export function sameCatalog(left: CatalogMemo, right: CatalogMemo): boolean {
  return JSON.stringify(left) === JSON.stringify(right);
}
