import type { Queryable } from '@wms/platform';
import { currentChildrenOf } from '../bom/bom-materials.js';

/** A parent's BOM as the import will publish it: the children of its kept rows. */
export interface ImportedBom {
  parentId: number;
  childIds: number[];
}

/**
 * The imported BOMs that would close a cycle with a BOM published before them in the same file (execute
 * publishes them in file order, each checked against what is current then). Preview and execute must give
 * the same verdict, so the file's earlier BOMs stand in for the stored ones while walking down: a parent
 * named twice in one file (P1 → P2, P2 → P1) is refused at its second BOM instead of failing the execute.
 */
export async function importedBomsClosingCycles(q: Queryable, boms: readonly ImportedBom[]): Promise<Set<number>> {
  const published = new Map<number, number[]>();
  const stored = new Map<number, number[]>();
  const childrenOf = async (ids: number[]) => {
    const unknown = ids.filter((id) => !published.has(id) && !stored.has(id));
    const found = await currentChildrenOf(q, unknown);
    for (const id of unknown) stored.set(id, found.get(id) ?? []);
    return ids.flatMap((id) => published.get(id) ?? stored.get(id) ?? []);
  };
  const refused = new Set<number>();
  for (const bom of boms) {
    if (await reaches(bom.childIds, bom.parentId, childrenOf)) refused.add(bom.parentId);
    else published.set(bom.parentId, bom.childIds);
  }
  return refused;
}

/** Whether walking down from `start`, level by level, reaches `target` (each material visited once). */
async function reaches(start: number[], target: number, childrenOf: (ids: number[]) => Promise<number[]>): Promise<boolean> {
  const seen = new Set<number>();
  let level = start;
  while (level.length > 0) {
    if (level.includes(target)) return true;
    level.forEach((id) => seen.add(id));
    level = [...new Set(await childrenOf(level))].filter((id) => !seen.has(id));
  }
  return false;
}
