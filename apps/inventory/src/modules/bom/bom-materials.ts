import { and, eq, inArray, sql } from 'drizzle-orm';
import { AppError, companyCondition, scopeAllows, type CompanyScope, type ErrorCode, type Queryable, type Tx } from '@wms/platform';
import { materials } from '../../db/schema/index.js';

/** The parent item of a BOM: a material; the BOM belongs to its company. */
export interface BomParent {
  id: number;
  name: string;
  specModel: string;
  category: string;
  unit: string;
  companyName: string;
}

const parentColumns = {
  id: materials.id,
  name: materials.name,
  specModel: materials.specModel,
  category: materials.category,
  unit: materials.unit,
  companyName: materials.companyName,
};

export const parentNotFound = (id: number, field = 'parent_id') => new AppError('NOT_FOUND', `物料 ${id} 不存在`, { field });

/**
 * The parent in the caller's scope, row-locked: BOM writes of one parent run one after another (the
 * version number and the one-draft rule are decided under this lock), and the material cannot be
 * deleted meanwhile. Another company's parent is as unknown as a missing one (404).
 */
export async function lockParent(tx: Tx, scope: CompanyScope, parentId: number): Promise<BomParent> {
  const [parent] = await tx
    .select(parentColumns)
    .from(materials)
    .where(and(eq(materials.id, parentId), companyCondition(scope, materials.companyName)))
    .for('update');
  if (!parent) throw parentNotFound(parentId);
  return parent;
}

export async function readParent(q: Queryable, scope: CompanyScope, parentId: number): Promise<BomParent> {
  const [parent] = await q
    .select(parentColumns)
    .from(materials)
    .where(and(eq(materials.id, parentId), companyCondition(scope, materials.companyName)));
  if (!parent) throw parentNotFound(parentId);
  return parent;
}

/** One refused child line: its index in the list, and the error it gives. */
export interface LineProblem {
  index: number;
  code: ErrorCode;
  msg: string;
}

export const lineProblemError = (problem: LineProblem) =>
  new AppError(problem.code, problem.msg, { field: `items.${problem.index}.child_id` });

/**
 * Every reason the child lines cannot belong to this parent's BOM, by line: a child named twice, the parent
 * itself, a material the caller cannot see (404), a material of another company than the parent's (400),
 * or a child whose current BOM already contains the parent, directly or further down (a cycle).
 * The API refuses with the first problem; the import marks each row.
 */
export async function checkBomLines(q: Queryable, scope: CompanyScope, parent: BomParent, childIds: readonly number[]): Promise<LineProblem[]> {
  const problems: LineProblem[] = [];
  const firstIndex = new Map<number, number>();
  childIds.forEach((childId, index) => {
    if (childId === parent.id) problems.push({ index, code: 'VALIDATION_FAILED', msg: `子件不能是父件本身（物料 ${childId}）` });
    else if (firstIndex.has(childId)) {
      problems.push({ index, code: 'VALIDATION_FAILED', msg: `子件 ${childId} 重复（与第 ${firstIndex.get(childId)! + 1} 行相同），同一子件请合并用量` });
    } else firstIndex.set(childId, index);
  });
  const ids = [...firstIndex.keys()];
  if (ids.length === 0) return problems;
  const found = await q.select({ id: materials.id, companyName: materials.companyName, name: materials.name }).from(materials).where(inArray(materials.id, ids));
  const byId = new Map(found.map((row) => [row.id, row]));
  const usable: number[] = [];
  for (const [childId, index] of firstIndex) {
    const child = byId.get(childId);
    if (!child || !scopeAllows(scope, child.companyName)) problems.push({ index, code: 'NOT_FOUND', msg: `物料 ${childId} 不存在` });
    else if (child.companyName !== parent.companyName) {
      problems.push({ index, code: 'VALIDATION_FAILED', msg: `子件 ${child.name} 属于公司 ${child.companyName}，与父件的公司 ${parent.companyName} 不同` });
    } else usable.push(childId);
  }
  for (const childId of await childrenLeadingBackTo(q, parent.id, usable)) {
    problems.push({ index: firstIndex.get(childId)!, code: 'VALIDATION_FAILED', msg: `子件 ${byId.get(childId)!.name} 的 BOM 中已包含父件 ${parent.name}，不能形成循环` });
  }
  return problems.sort((a, b) => a.index - b.index);
}

/**
 * The children whose current BOMs (the highest published version of each parent, followed down every
 * level) reach `parentId`. UNION stops on cycles already stored, so the walk always ends.
 */
async function childrenLeadingBackTo(q: Queryable, parentId: number, childIds: readonly number[]): Promise<number[]> {
  if (childIds.length === 0) return [];
  const roots = sql.join(childIds.map((id) => sql`(${id}::int, ${id}::int)`), sql`, `);
  const result = (await q.execute(sql`
    with recursive tree(root, id) as (
      select * from (values ${roots}) as start(root, id)
      union
      select tree.root, l.child_id
        from tree
        join bom_lines l on l.bom_version_id = (
          select v.id from bom_versions v where v.parent_id = tree.id and v.status = 'published' order by v.version desc limit 1)
    )
    select distinct root from tree where id = ${parentId}`)) as unknown as { rows: { root: number }[] };
  return result.rows.map((row) => Number(row.root));
}

/** The children of each parent's current BOM (its highest published version); a parent without one is absent. */
export async function currentChildrenOf(q: Queryable, parentIds: readonly number[]): Promise<Map<number, number[]>> {
  const children = new Map<number, number[]>();
  if (parentIds.length === 0) return children;
  const result = (await q.execute(sql`
    select v.parent_id, l.child_id
      from bom_versions v
      join bom_lines l on l.bom_version_id = v.id
     where v.parent_id in (${sql.join(parentIds.map((id) => sql`${id}::int`), sql`, `)}) and v.status = 'published'
       and v.version = (select max(v2.version) from bom_versions v2 where v2.parent_id = v.parent_id and v2.status = 'published')`)) as unknown as {
    rows: { parent_id: number; child_id: number }[];
  };
  for (const row of result.rows) children.set(Number(row.parent_id), [...(children.get(Number(row.parent_id)) ?? []), Number(row.child_id)]);
  return children;
}
