import { and, asc, eq, inArray } from 'drizzle-orm';
import {
  companyCondition,
  Decimal,
  notFound,
  pageOf,
  pagingOf,
  toDecimalString,
  validationFailed,
  type Tx,
  type UseCaseContext,
} from '@wms/platform';
import { materials, type MaterialRow } from '../../db/schema/index.js';
import { companyForRecord } from '../identity/company-rules.js';
import { moveMaterialImages } from '../image-search/material-image-service.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { requireCategory } from './category-path.js';
import { hiddenMaterialFields } from './field-permissions.js';
import { toMaterialView } from './material-mapper.js';
import { countMaterials, materialListWhere, pageOfMaterialIds, selectMaterialsWithSupply, supplyOfMaterial } from './material-supply.js';
import { specSuggestionCache } from './spec-suggestion-cache.js';
import { assertMaterialUnused } from './usage-checks.js';
import type { MaterialInput, MaterialListQuery } from './schemas.js';

export async function listMaterials(ctx: UseCaseContext, query: MaterialListQuery) {
  const paging = pagingOf(query);
  const where = materialListWhere(ctx.scope(query.company), query);
  const hidden = hiddenMaterialFields(ctx.actor);
  return ctx.read(async (q) => {
    const pageIds = pageOfMaterialIds(q, where, query, paging);
    const rows = await selectMaterialsWithSupply(q).where(inArray(materials.id, pageIds)).orderBy(asc(materials.id));
    return pageOf(
      rows.map((row) => toMaterialView(row.material, hidden, row.supply)),
      await countMaterials(q, where, query),
      paging,
    );
  });
}

/** Another company's material is as unknown as a missing one (404). */
export async function getMaterial(ctx: UseCaseContext, id: number) {
  const [row] = await ctx.read((q) => selectMaterialsWithSupply(q).where(inScope(ctx, id)));
  if (!row) throw notFound('物料');
  return toMaterialView(row.material, hiddenMaterialFields(ctx.actor), row.supply);
}

/** `input` holds only fields the caller may write (dropUnwritableFields ran before). */
export async function createMaterial(ctx: UseCaseContext, input: MaterialInput) {
  if (input.name === undefined) throw validationFailed('缺少必填字段 name', { field: 'name' });
  if (input.category === undefined) throw validationFailed('缺少必填字段 category', { field: 'category' });
  const companyName = await ctx.read((q) => companyForRecord(q, ctx.actor, input.company_name));
  const values = { ...columnValues(input), name: input.name.trim(), category: requireCategory(input.category), companyName };
  const row = await ctx.transaction(async (tx) => {
    const [created] = await tx.insert(materials).values(values).returning();
    clearSuggestionsAfterCommit(ctx);
    return created!;
  });
  return toMaterialView(row, hiddenMaterialFields(ctx.actor), await ctx.read((q) => supplyOfMaterial(q, row.id)));
}

/**
 * Partial: an absent field stays as it is. A write that changes nothing leaves no trace. A material moves
 * to another company only while nothing refers to it: its stock, purchase requests and BOMs belong to the
 * company they were made in.
 */
export async function updateMaterial(ctx: UseCaseContext, id: number, input: MaterialInput) {
  const values = { ...columnValues(input), companyName: input.company_name?.trim() };
  const row = await ctx.transaction(async (tx) => {
    const current = await lockMaterial(ctx, tx, id);
    if (!changesAnything(current, values)) return current;
    if (values.companyName) await companyForRecord(tx, ctx.actor, values.companyName);
    const moves = values.companyName !== undefined && values.companyName !== current.companyName;
    if (moves) await assertMaterialUnused(tx, id, '移到其他公司');
    const [updated] = await tx
      .update(materials)
      .set({ ...values, updatedAt: ctx.now })
      .where(eq(materials.id, id))
      .returning();
    if (moves) await moveMaterialImages(tx, id, updated!.companyName);
    clearSuggestionsAfterCommit(ctx);
    if (changesThresholds(current, values)) await scheduleLowStockCheck(ctx, tx, updated!.companyName, [id]);
    return updated!;
  });
  return toMaterialView(row, hiddenMaterialFields(ctx.actor), await ctx.read((q) => supplyOfMaterial(q, row.id)));
}

/** Answers the material as it was when deleted (contract §4). Nothing is in transit for an unused material. */
export async function deleteMaterial(ctx: UseCaseContext, id: number) {
  const { row, supply } = await ctx.transaction(async (tx) => {
    const current = await lockMaterial(ctx, tx, id);
    await assertMaterialUnused(tx, id);
    const supplyBefore = await supplyOfMaterial(tx, id);
    await tx.delete(materials).where(eq(materials.id, id));
    clearSuggestionsAfterCommit(ctx);
    return { row: current, supply: supplyBefore };
  });
  return toMaterialView(row, hiddenMaterialFields(ctx.actor), supply);
}

const inScope = (ctx: UseCaseContext, id: number) => and(eq(materials.id, id), companyCondition(ctx.scope(), materials.companyName));

/** The row locked for the rest of the transaction: stock-in of it waits until we are done. */
async function lockMaterial(ctx: UseCaseContext, tx: Tx, id: number): Promise<MaterialRow> {
  const [row] = await tx.select().from(materials).where(inScope(ctx, id)).for('update');
  if (!row) throw notFound('物料');
  return row;
}

function clearSuggestionsAfterCommit(ctx: UseCaseContext) {
  ctx.afterCommit(() => specSuggestionCache.clear());
}

/**
 * Whether a write changes a threshold: a new one may put the current supply at or below it (a crossing),
 * or lift it above (re-armed), so the low-stock check runs after the commit.
 */
export const changesThresholds = (current: MaterialRow, { redThreshold, yellowThreshold, targetThreshold }: ColumnValues): boolean =>
  changesAnything(current, { redThreshold, yellowThreshold, targetThreshold });

export type ColumnValues = Partial<Pick<MaterialRow,
  'name' | 'specModel' | 'category' | 'unit' | 'companyName' | 'purchaseLink' | 'referencePrice' |
  'productImageRemark' | 'manualLinkRemark' | 'remark' | 'redThreshold' | 'yellowThreshold' | 'targetThreshold'>>;

/** Body fields as column values; undefined means "leave it", null means "clear it". */
export function columnValues(input: MaterialInput): ColumnValues {
  return {
    name: input.name?.trim(),
    specModel: emptyWhenNull(input.spec_model),
    category: input.category === undefined ? undefined : requireCategory(input.category),
    unit: emptyWhenNull(input.unit),
    purchaseLink: trimmedOrNull(input.purchaseLink),
    referencePrice: money(input.referencePrice),
    productImageRemark: trimmedOrNull(input.productImageRemark),
    manualLinkRemark: trimmedOrNull(input.manualLinkRemark),
    remark: trimmedOrNull(input.remark),
    redThreshold: decimal(input.red_threshold),
    yellowThreshold: decimal(input.yellow_threshold),
    targetThreshold: decimal(input.target_threshold),
  };
}

/** spec_model and unit are never null: null clears them to ''. */
const emptyWhenNull = (value: string | null | undefined) => (value === null ? '' : value?.trim());
const trimmedOrNull = (value: string | null | undefined) => (value === undefined || value === null ? value : value.trim());
const decimal = (value: number | null | undefined) => (value === undefined || value === null ? value : toDecimalString(value));
/** decimal(10,2): rounded here exactly as the column would, so comparing with the stored value works. */
const money = (value: number | null | undefined) =>
  value === undefined || value === null ? value : new Decimal(value).toDecimalPlaces(2, Decimal.ROUND_HALF_UP).toFixed(2);

const numericColumns = new Set<keyof ColumnValues>(['referencePrice', 'redThreshold', 'yellowThreshold', 'targetThreshold']);

export function changesAnything(current: MaterialRow, values: ColumnValues): boolean {
  return (Object.keys(values) as (keyof ColumnValues)[]).some((column) => {
    const next = values[column];
    if (next === undefined) return false;
    const stored = current[column];
    if (next === null || stored === null) return next !== stored;
    return numericColumns.has(column) ? !new Decimal(next).equals(stored) : next !== stored;
  });
}
