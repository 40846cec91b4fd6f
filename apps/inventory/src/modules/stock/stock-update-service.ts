import { and, eq, sql } from 'drizzle-orm';
import { AppError, Decimal, toDecimalString, validationFailed, type UseCaseContext } from '@wms/platform';
import { stockRows, type StockRow } from '../../db/schema/index.js';
import { checkBuiltFrom } from '../bom/built-from.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { checkKindFields } from './kind-fields.js';
import { normalizeLocation } from './location.js';
import { priceVisibilityOf } from './price-visibility.js';
import { heldQuantityOf, quantityText } from './quantities.js';
import type { StockRowView, UpdateStockBody } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { lockScopedStockRow, materialOf, type StockRowWithMaterial } from './stock-rows.js';

type StockPatch = Partial<Pick<typeof stockRows.$inferInsert,
  'stockQuantity' | 'warehouseLocation' | 'batchNumber' | 'serialNumber' | 'inDate' | 'productionDate' | 'unitCost' | 'remark' | 'bomVersionId'>>;

const EDITABLE_FIELDS = [
  'stock_quantity', 'warehouse_location', 'batch_number', 'serial_number', 'in_date', 'production_date', 'unit_cost', 'remark',
  'bom_version_id',
] as const;

/**
 * Stock edit (contract §4): stock_quantity is the new physical quantity and available moves by the same
 * difference. Available may never drop below 0, so a cut below what is reserved or borrowed is
 * 400 QUANTITY_BELOW_RESERVED naming that amount. Status changes only through change-status.
 * Sending values equal to the stored ones writes nothing (no audit record).
 */
export async function updateStockRow(ctx: UseCaseContext, id: number, input: UpdateStockBody): Promise<StockRowView> {
  if (!EDITABLE_FIELDS.some((field) => input[field] !== undefined)) {
    throw validationFailed(`没有需要修改的字段（可修改: ${EDITABLE_FIELDS.join(', ')}）`, { field: 'body' });
  }
  const row = await ctx.transaction(async (tx) => {
    const current = await lockScopedStockRow(tx, ctx.scope(), id, input.source_table);
    const patch = patchOf(current, input);
    const bomVersionId = await checkBuiltFrom(tx, current, input.bom_version_id);
    if (bomVersionId !== undefined && bomVersionId !== current.bomVersionId) patch.bomVersionId = bomVersionId;
    if (Object.keys(patch).length === 0) return current;
    if (patch.stockQuantity !== undefined) assertCoversHeldQuantity(current, patch.stockQuantity);
    const [updated] = await tx
      .update(stockRows)
      .set({ ...patch, ...availableFollowing(patch.stockQuantity), updatedAt: ctx.now })
      .where(and(eq(stockRows.id, id), availableStaysNonNegative(patch.stockQuantity)))
      .returning();
    if (!updated) throw belowHeldQuantity(current, patch.stockQuantity ?? current.stockQuantity);
    // a fall may cross a threshold; a rise re-arms an alert, so the next fall is a new crossing
    if (patch.stockQuantity !== undefined) await scheduleLowStockCheck(ctx, tx, current.companyName, [current.baseId]);
    return { ...updated, ...materialOf(current) };
  });
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}

/** Only the fields that really change: an unchanged value is not written and not audited. */
function patchOf(current: StockRow, input: UpdateStockBody): StockPatch {
  const patch: StockPatch = {};
  const kindFields = checkKindFields(current.sourceTable, input);
  if (input.stock_quantity !== undefined && !sameDecimal(input.stock_quantity, current.stockQuantity)) {
    patch.stockQuantity = toDecimalString(input.stock_quantity);
  }
  const location = normalizeLocation(input.warehouse_location);
  if (location !== undefined && location !== current.warehouseLocation) patch.warehouseLocation = location;
  if (kindFields.batch_number !== undefined && kindFields.batch_number !== current.batchNumber) patch.batchNumber = kindFields.batch_number;
  if (kindFields.serial_number !== undefined && kindFields.serial_number !== current.serialNumber) patch.serialNumber = kindFields.serial_number;
  if (input.in_date !== undefined && input.in_date !== current.inDate) patch.inDate = input.in_date;
  if (input.production_date !== undefined && input.production_date !== current.productionDate) patch.productionDate = input.production_date;
  if (input.unit_cost !== undefined && !sameMoney(input.unit_cost, current.unitCost)) {
    patch.unitCost = input.unit_cost === null ? null : toDecimalString(input.unit_cost);
  }
  if (input.remark !== undefined && input.remark !== current.remark) patch.remark = input.remark;
  return patch;
}

const sameDecimal = (sent: number, stored: string) => new Decimal(sent).eq(stored);
const sameMoney = (sent: number | null, stored: string | null) =>
  sent === null || stored === null ? sent === stored : new Decimal(sent).toDecimalPlaces(2).eq(stored);

/** available := available + (new stock − old stock), computed by the database on the locked row. */
function availableFollowing(newStock: string | undefined) {
  if (newStock === undefined) return {};
  return { availableQuantity: sql`${stockRows.availableQuantity} + (${newStock}::numeric - ${stockRows.stockQuantity})` };
}

function availableStaysNonNegative(newStock: string | undefined) {
  if (newStock === undefined) return undefined;
  return sql`${stockRows.availableQuantity} + (${newStock}::numeric - ${stockRows.stockQuantity}) >= 0`;
}

function assertCoversHeldQuantity(current: StockRowWithMaterial, newStock: string) {
  if (new Decimal(newStock).lt(heldQuantityOf(current))) throw belowHeldQuantity(current, newStock);
}

function belowHeldQuantity(current: StockRow, newStock: string) {
  const held = heldQuantityOf(current);
  return new AppError(
    'QUANTITY_BELOW_RESERVED',
    `库存数量不能改为 ${quantityText(newStock)}：已有 ${quantityText(held)} 被预留或借出（当前库存 ${quantityText(current.stockQuantity)}，可用 ${quantityText(current.availableQuantity)}）`,
    {
      reserved: held.toNumber(),
      stock_quantity: new Decimal(current.stockQuantity).toNumber(),
      available_quantity: new Decimal(current.availableQuantity).toNumber(),
    },
  );
}
