import { and, eq } from 'drizzle-orm';
import { AppError, beijingDate, companyCondition, type CompanyScope, toDecimalString, type Tx, type UseCaseContext } from '@wms/platform';
import { materials, stockRows, type StockKind, type StockRow } from '../../db/schema/index.js';
import { checkBuiltFrom } from '../bom/built-from.js';
import { assertCompanyNamed } from '../identity/company-rules.js';
import { checkKindFields } from './kind-fields.js';
import { normalizeLocation } from './location.js';
import { priceVisibilityOf } from './price-visibility.js';
import type { StockInBody, StockRowView } from './schemas.js';
import { generateSku, normalizeSku } from './sku.js';
import { onStockedIn } from './stock-in-events.js';
import { toStockRowView } from './stock-mapper.js';
import type { MaterialOfRow } from './stock-rows.js';

const GENERATED_SKU_ATTEMPTS = 5;

/**
 * Stock-in (contract §4): a new row with stock = available = in_quantity, status 在库. The material must be
 * in the caller's scope and the row takes its company; a cross-domain caller names company_name (contract
 * §3, 400 otherwise) and the material must be of it. A sent sku that exists in any company or kind is 409
 * DUPLICATE.
 */
export async function stockIn(ctx: UseCaseContext, input: StockInBody): Promise<StockRowView> {
  const kind = input.source_table;
  const kindFields = checkKindFields(kind, input);
  const sentSku = input.sku === undefined ? undefined : normalizeSku(input.sku);
  const quantity = toDecimalString(input.in_quantity);
  assertCompanyNamed(ctx.actor, input.company_name);
  const row = await ctx.transaction(async (tx) => {
    const material = await findMaterialInScope(tx, ctx.scope(input.company_name), input.base_id);
    const bomVersionId = await checkBuiltFrom(tx, { sourceTable: kind, baseId: input.base_id, companyName: material.companyName }, input.bom_version_id);
    const values = {
      sourceTable: kind,
      baseId: input.base_id,
      stockQuantity: quantity,
      availableQuantity: quantity,
      inQuantity: quantity,
      status: '在库' as const,
      warehouseLocation: normalizeLocation(input.warehouse_location) ?? '',
      batchNumber: kindFields.batch_number ?? null,
      serialNumber: kindFields.serial_number ?? null,
      inDate: input.in_date ?? beijingDate(ctx.now),
      productionDate: input.production_date ?? null,
      // A stock_buy stock-in with request_id completes the linked purchase request (spec 4.2, onStockedIn).
      requestId: kindFields.request_id ?? null,
      unitCost: input.unit_cost == null ? null : toDecimalString(input.unit_cost),
      remark: input.remark ?? null,
      bomVersionId: bomVersionId ?? null,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    };
    const inserted = { ...(await insertWithUniqueSku(tx, values, sentSku, ctx.now)), ...material };
    await onStockedIn(ctx, tx, inserted);
    return inserted;
  });
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}

async function findMaterialInScope(tx: Tx, scope: CompanyScope, baseId: number): Promise<MaterialOfRow> {
  const [material] = await tx
    .select({
      materialName: materials.name,
      specModel: materials.specModel,
      category: materials.category,
      unit: materials.unit,
      companyName: materials.companyName,
      referencePrice: materials.referencePrice,
    })
    .from(materials)
    .where(and(eq(materials.id, baseId), companyCondition(scope, materials.companyName)));
  if (!material) throw new AppError('NOT_FOUND', `物料 ${baseId} 不存在`, { field: 'base_id' });
  return material;
}

export type NewStockRow = Omit<typeof stockRows.$inferInsert, 'sku'> & { sourceTable: StockKind };

/** ON CONFLICT DO NOTHING keeps the transaction usable, so a generated sku that collides is simply redrawn. */
export async function insertWithUniqueSku(tx: Tx, values: NewStockRow, sentSku: string | undefined, now: Date): Promise<StockRow> {
  for (let attempt = 0; attempt < GENERATED_SKU_ATTEMPTS; attempt++) {
    const sku = sentSku ?? generateSku(values.sourceTable, now);
    const [row] = await tx.insert(stockRows).values({ ...values, sku }).onConflictDoNothing({ target: stockRows.sku }).returning();
    if (row) return row;
    if (sentSku) throw new AppError('DUPLICATE', `条码(SKU) ${sku} 已存在`, { sku });
  }
  throw new AppError('CONFLICT', '自动生成条码冲突，请重试');
}
