import type { WorkflowTypeInfo } from '../../../core/domain/catalog.js';
import { deepFreeze } from '../../../core/domain/json.js';
import { CATALOG_MEMO_KEY, type CatalogMemo, type PublishedWorkflow } from '../protocol.js';
import type { Payload } from './proto.js';
import { decodePayload } from './values.js';

type MemoFields = { [key: string]: Payload } | null | undefined;

/**
 * The usable run time limits a memo publishes, by workflow name. The memo is checked as a CatalogMemo but not its
 * `runTimeoutMs`, so a limit that is not a positive finite number (a worker of another release) is left out here.
 */
export function runTimeoutsOf(workflows: readonly PublishedWorkflow[]): ReadonlyMap<string, number> {
  const limits = new Map<string, number>();
  for (const { name, runTimeoutMs } of workflows) {
    if (typeof runTimeoutMs === 'number' && Number.isFinite(runTimeoutMs) && runTimeoutMs > 0) limits.set(name, runTimeoutMs);
  }
  return limits;
}

/** What the core sees of a published workflow: exactly a WorkflowTypeInfo. */
export function typeInfoOf({ name, description, inputSchema, outputSchema, feedbackSchema }: PublishedWorkflow): WorkflowTypeInfo {
  return { name, description, inputSchema, outputSchema, ...(feedbackSchema === undefined ? {} : { feedbackSchema }) };
}

/** The catalog registry workflow's memo, checked; undefined when it is missing or not a CatalogMemo. */
export function catalogMemoOf(fields: MemoFields): CatalogMemo | undefined {
  const payload = fields?.[CATALOG_MEMO_KEY];
  if (!payload) return undefined;
  let value: unknown;
  try {
    value = decodePayload(payload);
  } catch {
    return undefined;
  }
  return isCatalogMemo(value) ? value : undefined;
}

function isCatalogMemo(value: unknown): value is CatalogMemo {
  if (typeof value !== 'object' || value === null) return false;
  const memo = value as Partial<CatalogMemo>;
  return (
    typeof memo.catalog === 'string' &&
    Array.isArray(memo.workflows) &&
    memo.workflows.every(isWorkflowTypeInfo) &&
    Array.isArray(memo.onlineWorkers) &&
    memo.onlineWorkers.every((worker) => typeof worker === 'string')
  );
}

function isWorkflowTypeInfo(value: unknown): value is WorkflowTypeInfo {
  if (typeof value !== 'object' || value === null) return false;
  const info = value as Partial<WorkflowTypeInfo>;
  const isSchema = (schema: unknown): boolean => typeof schema === 'boolean' || (typeof schema === 'object' && schema !== null);
  // A worker of a release before feedbackSchema publishes none.
  return (
    typeof info.name === 'string' &&
    typeof info.description === 'string' &&
    isSchema(info.inputSchema) &&
    isSchema(info.outputSchema) &&
    (info.feedbackSchema === undefined || isSchema(info.feedbackSchema))
  );
}

/**
 * Keeps workflow type objects identical between reads while their content is unchanged: the core caches a compiled
 * validator per schema object, so a fresh object per read would recompile schemas on every start.
 */
export class StableWorkflowTypes {
  private readonly known = new Map<string, { byContent: Map<string, WorkflowTypeInfo>; list: readonly WorkflowTypeInfo[] }>();

  for(catalog: string, workflows: readonly WorkflowTypeInfo[]): WorkflowTypeInfo[] {
    const previous = this.known.get(catalog);
    const byContent = new Map<string, WorkflowTypeInfo>();
    const list = workflows.map((workflow) => {
      const content = JSON.stringify(workflow);
      const info = byContent.get(content) ?? previous?.byContent.get(content) ?? deepFreeze(workflow);
      byContent.set(content, info);
      return info;
    });
    const unchanged = previous && previous.list.length === list.length && previous.list.every((info, index) => info === list[index]);
    if (unchanged) return previous.list as WorkflowTypeInfo[];
    this.known.set(catalog, { byContent, list });
    return list;
  }
}
