import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { AppError, Decimal, type Tx } from '@wms/platform';
import { materials, stockRows, transBorrow, transDefectiveGoods, type ScrapLine, type ScrapRequestRow, type TransBorrowRow } from '../../db/schema/index.js';
import { assertBorrowed, assertNoPendingTransfer, pendingQuantityOf, quantityExceeds } from '../borrow/line-access.js';
import { scrapFromLedger } from '../defective/scrap-request-seam.js';
import { flattenJoined, selectStockRows, type StockRowWithMaterial } from '../stock/stock-rows.js';
import type { ScrappedUnit } from './scrapped-units.js';

const linesOf = (request: ScrapRequestRow, source: ScrapLine['source_table']) =>
  request.itemsJson.filter((line) => line.source_table === source).sort((a, b) => a.stock_id - b.stock_id);

/**
 * Auto mode (borrow lines and ledger entries): every line is executed by its approved quantity, or the
 * whole execution fails and nothing changes. Lock order: the borrow lines in id order, the ledger
 * entries in id order, then the borrow lines' stock rows in id order — a borrow return locks its line
 * before its row and a restock its entry before its row, so no two of them wait on each other in a circle.
 */
export async function scrapAuto(tx: Tx, request: ScrapRequestRow, now: Date): Promise<{ units: ScrappedUnit[]; lowered: number[] }> {
  const borrowed = await lockBorrowLines(tx, request, linesOf(request, 'trans_borrow'), now);
  const fromLedger = await takeFromLedgerEntries(tx, request, linesOf(request, 'trans_defective_goods'), now);
  const fromRows = await takeBorrowedOffStock(tx, borrowed, now);
  return { units: [...fromRows, ...fromLedger], lowered: borrowed.map(({ line }) => line.baseId) };
}

interface BorrowedUnit {
  line: TransBorrowRow;
  quantity: Decimal;
  location: string;
}

/**
 * Each line locked and still as the request found it: borrowed (a returned or scrapped line 400
 * STATUS_NOT_ALLOWED), no PENDING transfer, and still out by the approved quantity (a return since
 * then: 400 QUANTITY_EXCEEDS — withdraw and apply again for what is left).
 */
async function lockBorrowLines(tx: Tx, request: ScrapRequestRow, lines: ScrapLine[], now: Date): Promise<BorrowedUnit[]> {
  if (lines.length === 0) return [];
  const locked = await tx
    .select()
    .from(transBorrow)
    .where(and(inArray(transBorrow.id, lines.map((line) => line.stock_id)), eq(transBorrow.companyName, request.companyName)))
    .orderBy(asc(transBorrow.id))
    .for('update');
  const byId = new Map(locked.map((line) => [line.id, line]));
  const units: BorrowedUnit[] = [];
  for (const scrapLine of lines) {
    const line = byId.get(scrapLine.stock_id);
    if (!line) throw new AppError('STATUS_NOT_ALLOWED', `借用记录 ${scrapLine.stock_id} 已不存在，不能报废`, { stock_id: scrapLine.stock_id });
    assertBorrowed(line, '报废');
    await assertNoPendingTransfer(tx, line, '报废', now);
    const approved = new Decimal(scrapLine.quantity);
    if (!pendingQuantityOf(line).equals(approved)) throw quantityExceeds(line, approved, '报废');
    units.push({ line, quantity: approved, location: scrapLine.location || line.location });
  }
  return units;
}

/**
 * The ledger side (spec 3.8, 4.2) through its seam: remaining_qty falls and reaches 已报废 at 0; an
 * entry that no longer holds the quantity (an over-subscribed earlier execution, a restock) fails the
 * execution with 400. Cost comes from the original row, which may be gone (then the material's price).
 */
async function takeFromLedgerEntries(tx: Tx, request: ScrapRequestRow, lines: ScrapLine[], now: Date): Promise<ScrappedUnit[]> {
  const units: ScrappedUnit[] = [];
  for (const line of lines) {
    const entry = await scrapFromLedger(tx, request.companyName, line.stock_id, line.quantity, now);
    units.push({
      sourceTable: 'trans_defective_goods',
      stockId: entry.id,
      baseId: entry.baseId,
      sku: entry.sku,
      materialName: entry.materialName,
      specModel: entry.specModel,
      unit: '',
      quantity: line.quantity,
      location: line.location,
      unitCost: null,
      referencePrice: null,
    });
  }
  if (units.length === 0) return units;
  const prices = await tx
    .select({ id: transDefectiveGoods.id, unitCost: stockRows.unitCost, referencePrice: materials.referencePrice, unit: materials.unit })
    .from(transDefectiveGoods)
    .innerJoin(materials, eq(materials.id, transDefectiveGoods.baseId))
    .leftJoin(stockRows, eq(stockRows.id, transDefectiveGoods.stockId))
    .where(inArray(transDefectiveGoods.id, units.map((unit) => unit.stockId)));
  const byId = new Map(prices.map((price) => [price.id, price]));
  return units.map((unit) => {
    const price = byId.get(unit.stockId);
    return { ...unit, unit: price?.unit ?? '', unitCost: price?.unitCost ?? null, referencePrice: price?.referencePrice ?? null };
  });
}

/**
 * A borrowed unit that will never come back leaves the books (spec 3.4, 2.6): its frozen quantity leaves
 * stock_quantity (available_quantity never had it), the line becomes scrapped and nobody holds it. The
 * rows are locked in id order; a row gone meanwhile is 400.
 */
async function takeBorrowedOffStock(tx: Tx, borrowed: BorrowedUnit[], now: Date): Promise<ScrappedUnit[]> {
  if (borrowed.length === 0) return [];
  const rowIds = [...new Set(borrowed.map(({ line }) => line.stockId))];
  const locked = await selectStockRows(tx).where(inArray(stockRows.id, rowIds)).orderBy(asc(stockRows.id)).for('update', { of: stockRows });
  const rows = new Map<number, StockRowWithMaterial>(locked.map((joined) => [joined.row.id, flattenJoined(joined)]));
  const perRow = new Map<number, Decimal>();
  for (const { line, quantity } of borrowed) perRow.set(line.stockId, (perRow.get(line.stockId) ?? new Decimal(0)).plus(quantity));

  for (const [rowId, quantity] of [...perRow].sort(([a], [b]) => a - b)) {
    const taken = rows.has(rowId)
      ? await tx
          .update(stockRows)
          .set({ stockQuantity: sql`${stockRows.stockQuantity} - ${quantity.toString()}::numeric`, updatedAt: now })
          .where(and(eq(stockRows.id, rowId), sql`${stockRows.stockQuantity} - ${quantity.toString()}::numeric >= ${stockRows.availableQuantity}`))
          .returning({ id: stockRows.id })
      : [];
    if (taken.length === 0) {
      const sku = borrowed.find(({ line }) => line.stockId === rowId)!.line.sku;
      throw new AppError('STATUS_NOT_ALLOWED', `借用物品对应的库存行（${sku}）已不存在或数量已被修改，不能报废`, { stock_id: rowId });
    }
  }
  await tx
    .update(transBorrow)
    .set({ status: 'scrapped', currentHolderId: null, updatedAt: now })
    .where(and(inArray(transBorrow.id, borrowed.map(({ line }) => line.id)), eq(transBorrow.status, 'borrowed')));

  return borrowed.map(({ line, quantity, location }) => {
    const row = rows.get(line.stockId);
    return {
      sourceTable: 'trans_borrow' as const,
      stockId: line.id,
      baseId: line.baseId,
      sku: line.sku,
      materialName: line.materialName,
      specModel: line.specModel,
      unit: line.unit,
      quantity: quantity.toString(),
      location,
      unitCost: row?.unitCost ?? null,
      referencePrice: row?.referencePrice ?? null,
    };
  });
}
