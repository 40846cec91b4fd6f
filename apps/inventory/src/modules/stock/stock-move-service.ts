import { and, eq, getTableColumns, gte, sql } from 'drizzle-orm';
import { AppError, Decimal, toDecimalString, validationFailed, type Tx, type UseCaseContext } from '@wms/platform';
import { stockMoves, stockRows, type StockRow } from '../../db/schema/index.js';
import { normalizeLocation } from './location.js';
import type { MoveStockBody, MoveStockResult } from './move-schemas.js';
import { priceVisibilityOf } from './price-visibility.js';
import { heldQuantityOf, quantityText } from './quantities.js';
import { insertWithUniqueSku, type NewStockRow } from './stock-in-service.js';
import { toStockMoveView } from './stock-move-mapper.js';
import { toStockRowView } from './stock-mapper.js';
import { lockScopedStockRow, materialOf, type StockRowWithMaterial } from './stock-rows.js';

/**
 * Moves stock to another location (POST /stock/<id>/move). Without quantity, or with the row's whole
 * quantity, the row itself moves; that needs nothing held on it (reservations and lent goods stay where
 * the books put them), else 400 IN_USE. With a smaller quantity the part is split off into a new row at
 * the new location (every column of the row but id and sku, which is generated); the part
 * must come out of the available quantity (400 QUANTITY_EXCEEDS), so reserved or lent quantity never moves.
 * Every move is recorded in stock_moves. Total stock does not change: no low-stock check.
 */
export async function moveStock(ctx: UseCaseContext, id: number, input: MoveStockBody): Promise<MoveStockResult> {
  const toLocation = normalizeLocation(input.to_location) ?? '';
  if (!toLocation) throw validationFailed('目标库位不能为空', { field: 'to_location' });
  const quantity = input.quantity === undefined ? undefined : toDecimalString(input.quantity);
  const moved = await ctx.transaction(async (tx) => {
    const row = await lockScopedStockRow(tx, ctx.scope(), id, input.source_table);
    if (row.warehouseLocation === toLocation) {
      throw validationFailed(`库存已在库位 ${toLocation}`, { field: 'to_location' });
    }
    const whole = quantity === undefined || new Decimal(quantity).eq(row.stockQuantity);
    const [from, to] = whole ? await moveWholeRow(tx, ctx, row, toLocation) : await splitOff(tx, ctx, row, quantity!, toLocation);
    const [move] = await tx
      .insert(stockMoves)
      .values({
        stockId: row.id,
        toStockId: to.id,
        sourceTable: row.sourceTable,
        sku: row.sku,
        toSku: to.sku,
        baseId: row.baseId,
        companyName: row.companyName,
        fromLocation: row.warehouseLocation,
        toLocation,
        quantity: whole ? row.stockQuantity : quantity!,
        whole,
        operator: ctx.actor.username,
        operatorName: ctx.actor.name,
        operatorId: ctx.actor.id,
        movedAt: ctx.now,
      })
      .returning();
    const material = materialOf(row);
    return { move: move!, from: { ...from, ...material }, to: { ...to, ...material } };
  });
  const prices = priceVisibilityOf(ctx.actor);
  return { move: toStockMoveView(moved.move), from_row: toStockRowView(moved.from, prices), to_row: toStockRowView(moved.to, prices) };
}

async function moveWholeRow(tx: Tx, ctx: UseCaseContext, row: StockRowWithMaterial, toLocation: string): Promise<[StockRow, StockRow]> {
  const held = heldQuantityOf(row);
  if (held.gt(0)) {
    throw new AppError(
      'IN_USE',
      `条码 ${row.sku} 有 ${quantityText(held)} 被预留或借出，不能整行移动；请指定 quantity（不超过可用数量 ${quantityText(row.availableQuantity)}）拆分移动`,
      { reserved: held.toNumber(), available_quantity: new Decimal(row.availableQuantity).toNumber() },
    );
  }
  const [updated] = await tx
    .update(stockRows)
    .set({ warehouseLocation: toLocation, updatedAt: ctx.now })
    .where(and(eq(stockRows.id, row.id), sql`${stockRows.availableQuantity} = ${stockRows.stockQuantity}`))
    .returning();
  if (!updated) throw new AppError('CONFLICT', '库存行已被占用，请重试');
  return [updated, updated];
}

async function splitOff(tx: Tx, ctx: UseCaseContext, row: StockRowWithMaterial, quantity: string, toLocation: string): Promise<[StockRow, StockRow]> {
  if (new Decimal(quantity).gt(row.availableQuantity)) {
    throw new AppError(
      'QUANTITY_EXCEEDS',
      `移动数量 ${quantityText(quantity)} 超过可用数量 ${quantityText(row.availableQuantity)}（预留或借出的数量不能移动）`,
      { field: 'quantity', available_quantity: new Decimal(row.availableQuantity).toNumber() },
    );
  }
  const [source] = await tx
    .update(stockRows)
    .set({
      stockQuantity: sql`${stockRows.stockQuantity} - ${quantity}::numeric`,
      availableQuantity: sql`${stockRows.availableQuantity} - ${quantity}::numeric`,
      updatedAt: ctx.now,
    })
    .where(and(eq(stockRows.id, row.id), gte(stockRows.availableQuantity, quantity)))
    .returning();
  if (!source) throw new AppError('CONFLICT', '库存行已被占用，请重试');
  const part = await insertWithUniqueSku(
    tx,
    {
      ...rowColumnsOf(row),
      stockQuantity: quantity,
      availableQuantity: quantity,
      inQuantity: quantity,
      warehouseLocation: toLocation,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    },
    undefined,
    ctx.now,
  );
  return [source, part];
}

/**
 * Every stock_rows column of the row but its identity (id, sku): the split-off part is the same goods
 * (kind, material, batch, serial, status, dates, cost, remark, and any column added later).
 */
function rowColumnsOf(row: StockRowWithMaterial): NewStockRow {
  const copy: Record<string, unknown> = {};
  for (const column of Object.keys(getTableColumns(stockRows))) {
    if (column !== 'id' && column !== 'sku') copy[column] = row[column as keyof StockRow];
  }
  return copy as NewStockRow;
}
