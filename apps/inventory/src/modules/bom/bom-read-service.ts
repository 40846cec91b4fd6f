import { and, asc, count, desc, eq } from 'drizzle-orm';
import {
  AppError,
  companyCondition,
  dayRangeCondition,
  keywordMatch,
  pageOf,
  pagingOf,
  timeRangeCondition,
  toQuantityOrZero,
  type Page,
  type Queryable,
  type UseCaseContext,
} from '@wms/platform';
import { bomVersions, materials, stockRows } from '../../db/schema/index.js';
import { materialWhere } from '../materials/material-filter.js';
import { readParent } from './bom-materials.js';
import {
  childViews,
  parentFields,
  selectVersions,
  shownVersion,
  versionFields,
} from './bom-read.js';
import type {
  BomListItem,
  BomListQuery,
  BomSummary,
  BomVersionsQuery,
  BomVersionSummary,
  BomVersionView,
  BuiltSerialsQuery,
  BuiltSerialView,
} from './schemas.js';

/** Parents with a BOM (any version) per parent category, in the caller's company scope. */
export async function summarizeBoms(ctx: UseCaseContext, company?: string): Promise<BomSummary> {
  const rows = await ctx.read((q) =>
    q
      .select({ category: materials.category, count: count() })
      .from(bomVersions)
      .innerJoin(materials, eq(materials.id, bomVersions.parentId))
      .where(and(shownVersion, companyCondition(ctx.scope(company), materials.companyName)))
      .groupBy(materials.category)
      .orderBy(asc(materials.category)),
  );
  return { total: rows.reduce((sum, row) => sum + row.count, 0), categories: rows };
}

/**
 * A page of parents (id ascending) with the children of the version each shows (current published, else
 * its draft): one query for the page with the children aggregated in it, one for the count. keyword and
 * category as the material list; start_date / end_date on the shown version's created_at.
 */
export async function listBoms(ctx: UseCaseContext, query: BomListQuery): Promise<Page<BomListItem>> {
  const paging = pagingOf(query);
  const where = and(
    shownVersion,
    materialWhere(ctx.scope(query.company), { category: query.category, keyword: query.keyword }),
    timeRangeCondition(bomVersions.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await selectVersions(q)
      .where(where)
      .orderBy(asc(bomVersions.parentId))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(bomVersions).innerJoin(materials, eq(materials.id, bomVersions.parentId)).where(where);
    const items = rows.map((row) => ({
      ...parentFields(row),
      ...versionFields(row),
      draft_version: row.draftNumber === null ? null : Number(row.draftNumber),
      children: childViews(row.children),
    }));
    return pageOf(items, total?.n ?? 0, paging);
  });
}

/**
 * One version of a parent's BOM: `version` names its number; without it the current published version,
 * or the draft while nothing is published. A parent outside the caller's scope is 404.
 */
export async function getBom(ctx: UseCaseContext, parentId: number, version?: number): Promise<BomVersionView> {
  return ctx.read(async (q) => {
    const parent = await readParent(q, ctx.scope(), parentId);
    const condition = version === undefined ? shownVersion : eq(bomVersions.version, version);
    const view = await versionView(q, and(eq(bomVersions.parentId, parentId), condition));
    if (!view) {
      throw new AppError('NOT_FOUND', version === undefined ? `物料 ${parent.name} 没有 BOM` : `物料 ${parent.name} 没有第 ${version} 版 BOM`);
    }
    return view;
  });
}

/** The parent's draft, or null (contract §8: "draft or empty" answers 200 null). */
export async function readDraft(ctx: UseCaseContext, parentId: number): Promise<BomVersionView | null> {
  return ctx.read(async (q) => {
    await readParent(q, ctx.scope(), parentId);
    return (await versionView(q, and(eq(bomVersions.parentId, parentId), eq(bomVersions.status, 'draft')))) ?? null;
  });
}

export async function versionView(q: Queryable, where: ReturnType<typeof and>): Promise<BomVersionView | undefined> {
  const [row] = await selectVersions(q).where(where);
  if (!row) return undefined;
  return { ...versionFields(row), ...parentFields(row), items: childViews(row.children) };
}

/**
 * Every version of a parent, newest first, with its line and built-serial counts; keyword on the version's
 * remark, start_date / end_date on its created_at.
 */
export async function listVersions(ctx: UseCaseContext, parentId: number, query: BomVersionsQuery): Promise<Page<BomVersionSummary>> {
  const paging = pagingOf(query);
  const where = and(
    eq(bomVersions.parentId, parentId),
    keywordMatch(query.keyword, bomVersions.remark),
    timeRangeCondition(bomVersions.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    await readParent(q, ctx.scope(), parentId);
    const rows = await selectVersions(q)
      .where(where)
      .orderBy(desc(bomVersions.version))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(bomVersions).where(where);
    return pageOf(
      rows.map((row) => ({ ...versionFields(row), serial_count: Number(row.serialCount) })),
      total?.n ?? 0,
      paging,
    );
  });
}

/**
 * Finished-product rows stocked in as built from this version (newest first); keyword on sku, serial number
 * or location, start_date / end_date on in_date (Beijing days, as the stock list).
 */
export async function listBuiltSerials(ctx: UseCaseContext, versionId: number, query: BuiltSerialsQuery): Promise<Page<BuiltSerialView>> {
  const paging = pagingOf(query);
  return ctx.read(async (q) => {
    const [version] = await q
      .select({ id: bomVersions.id })
      .from(bomVersions)
      .where(and(eq(bomVersions.id, versionId), companyCondition(ctx.scope(), bomVersions.companyName)));
    if (!version) throw new AppError('NOT_FOUND', `BOM 版本 ${versionId} 不存在`);
    const builtFrom = and(
      eq(stockRows.bomVersionId, versionId),
      keywordMatch(query.keyword, stockRows.sku, stockRows.serialNumber, stockRows.warehouseLocation),
      dayRangeCondition(stockRows.inDate, query.start_date, query.end_date),
    );
    const rows = await q.select().from(stockRows).where(builtFrom).orderBy(desc(stockRows.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(stockRows).where(builtFrom);
    const items = rows.map((row) => ({
      stock_id: row.id,
      sku: row.sku,
      serial_number: row.serialNumber,
      status: row.status,
      warehouse_location: row.warehouseLocation,
      stock_quantity: toQuantityOrZero(row.stockQuantity),
      in_date: row.inDate,
      production_date: row.productionDate,
    }));
    return pageOf(items, total?.n ?? 0, paging);
  });
}
