import { and, asc, count, eq, isNull, like, notExists, or, sql, type SQL } from 'drizzle-orm';
import { AppError, forbidden, keywordMatch, pageOf, pagingOf, timeRangeCondition, type Tx, type UseCaseContext, validationFailed } from '@wms/platform';
import { materials, type MaterialRow } from '../../db/schema/index.js';
import { toMaterialView } from './product-mapper.js';
import type { CreateMaterialBody, MaterialListQuery } from './schemas.js';

/** Categories are stored normalised: segments trimmed, empty segments dropped (' A / B //C ' → 'A/B/C'). */
export function normaliseCategory(raw: string): string {
  return raw
    .split('/')
    .map((segment) => segment.trim())
    .filter((segment) => segment.length > 0)
    .join('/');
}

/**
 * Only categories below `<prefix>/` belong to this department (spec §1): a leading prefix match on
 * whole segments, never a substring ('ALPHA/x' yes; 'BETA/ALPHA/x' and 'ALPHAX/y' no).
 */
export function departmentCategoryCondition(prefix: string): SQL {
  const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
  return like(materials.category, `${escaped}/%`);
}

export interface MaterialNotice {
  base_id: number;
  name: string;
  category: string;
}

/**
 * Records the product model a stock-in notification names (the receiver calls this inside its
 * transaction). Keyed by the inventory base_id: a known one gets its name and category refreshed
 * (nothing is written when they are equal); an unknown one first adopts a hand-made material of the
 * same category and name, else is inserted.
 */
export async function upsertMaterial(tx: Tx, notice: MaterialNotice): Promise<MaterialRow> {
  const category = normaliseCategory(notice.category);
  const name = notice.name.trim() || `物料 ${notice.base_id}`;
  const [adopted] = await tx
    .update(materials)
    .set({ baseId: notice.base_id, updatedAt: sql`now()` })
    .where(
      and(
        isNull(materials.baseId),
        eq(materials.category, category),
        eq(materials.name, name),
        notExists(tx.select({ id: materials.id }).from(materials).where(eq(materials.baseId, notice.base_id))),
      ),
    )
    .returning();
  if (adopted) return adopted;
  const [written] = await tx
    .insert(materials)
    .values({ baseId: notice.base_id, name, category })
    .onConflictDoUpdate({
      target: materials.baseId,
      set: { name, category, updatedAt: sql`now()` },
      setWhere: or(sql`${materials.name} <> ${name}`, sql`${materials.category} <> ${category}`),
    })
    .returning();
  if (written) return written;
  const [unchanged] = await tx.select().from(materials).where(eq(materials.baseId, notice.base_id));
  return unchanged!;
}

export async function listMaterials(ctx: UseCaseContext, prefix: string, query: MaterialListQuery) {
  const paging = pagingOf(query);
  const conditions: (SQL | undefined)[] = [departmentCategoryCondition(prefix)];
  conditions.push(keywordMatch(query.keyword, materials.name, materials.category));
  conditions.push(timeRangeCondition(materials.createdAt, query.start_date, query.end_date));
  const where = and(...conditions);
  return ctx.read(async (q) => {
    const rows = await q.select().from(materials).where(where).orderBy(asc(materials.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(materials).where(where);
    return pageOf(rows.map(toMaterialView), total?.n ?? 0, paging);
  });
}

const MATERIAL_EDITORS = ['SUPER_ADMIN', 'SUPERVISOR'];

/**
 * A product model created by hand (SUPER_ADMIN or SUPERVISOR). Any category is stored; only those
 * below the department prefix are listed. A known base_id, or a hand-made one with the same category
 * and name, is 409 DUPLICATE.
 */
export async function createMaterial(ctx: UseCaseContext, input: CreateMaterialBody) {
  if (!MATERIAL_EDITORS.includes(ctx.actor.role)) throw forbidden('只有超级管理员或主管可以新建产品型号');
  const category = normaliseCategory(input.category);
  if (!category) throw validationFailed('分类不能为空，应为以 / 分隔的路径', { field: 'category' });
  const name = input.name.trim();
  const row = await ctx.transaction(async (tx) => {
    const [inserted] = await tx
      .insert(materials)
      .values({ baseId: input.base_id ?? null, name, category, createdAt: ctx.now, updatedAt: ctx.now })
      .onConflictDoNothing()
      .returning();
    if (!inserted) {
      const which = input.base_id ? `物料 id ${input.base_id}` : `${category} 下的 ${name}`;
      throw new AppError('DUPLICATE', `${which} 已存在`);
    }
    return inserted;
  });
  return toMaterialView(row);
}
