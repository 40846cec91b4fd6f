import { and, asc, inArray, sql } from 'drizzle-orm';
import { AppError, companyCondition, Decimal, notFound, toQuantityOrZero, type CompanyScope, type Tx } from '@wms/platform';
import { materials, stockRows, type StockKind } from '../../db/schema/index.js';
import { flattenJoined, selectStockRows, type StockRowWithMaterial } from '../stock/stock-rows.js';
import { quantityPerRow, type ReservationLine } from './lines.js';

/** A named stock row and how much of it to hold (decimal string). */
export interface RowClaim {
  stock_id: number;
  source_table: StockKind;
  quantity: string;
}

/**
 * Reserves named stock rows (scrap of stock rows, contract §8 — the request names the very items, so
 * nothing is allocated): claims on one row are merged; the rows are locked in ascending id order; each
 * must be in `scope` and of the kind named (else 404), 在库 (400 NOT_IN_STOCK) and hold the quantity
 * available (400 STOCK_SHORTAGE with needed, remaining); all must belong to one company (400). Strict:
 * on any refusal nothing is reserved (the caller's transaction rolls back). Answers the company and one
 * reserved line per row, in the order the rows were first named; the rows stay locked until commit.
 */
export async function reserveRows(
  tx: Tx,
  scope: CompanyScope,
  claims: readonly RowClaim[],
): Promise<{ company: string; lines: ReservationLine[] }> {
  const wanted = quantityPerRow(claims);
  const ids = [...wanted.keys()];
  const locked = await selectStockRows(tx)
    .where(and(inArray(stockRows.id, ids), companyCondition(scope, materials.companyName)))
    .orderBy(asc(stockRows.id))
    .for('update', { of: stockRows });
  const rows = new Map(locked.map((joined) => [joined.row.id, flattenJoined(joined)]));

  const lines: ReservationLine[] = [];
  for (const claim of claims) {
    if (lines.some((line) => line.stock_id === claim.stock_id)) continue;
    const row = rows.get(claim.stock_id);
    if (!row || row.sourceTable !== claim.source_table) throw notFound(`库存记录 ${claim.stock_id}`);
    assertHoldable(row, wanted.get(row.id)!);
    lines.push({ base_id: row.baseId, quantity: wanted.get(row.id)!.toString(), stock_id: row.id, source_table: row.sourceTable, reserved: true });
  }
  const companies = new Set(lines.map((line) => rows.get(line.stock_id)!.companyName));
  if (companies.size > 1) {
    throw new AppError('VALIDATION_FAILED', `同一申请的库存必须属于同一公司（涉及 ${[...companies].join('、')}）`, { field: 'items' });
  }

  await holdOnRows(tx, lines);
  return { company: [...companies][0]!, lines };
}

/** Every line's quantity held out of its row, in one statement: the rows are locked and checked already. */
async function holdOnRows(tx: Tx, lines: readonly ReservationLine[]): Promise<void> {
  const ids = lines.map((line) => line.stock_id);
  const quantities = lines.map((line) => line.quantity);
  await tx.execute(
    sql`update stock_rows as s
           set available_quantity = s.available_quantity - held.quantity, updated_at = now()
          from unnest(${sql.param(ids)}::int[], ${sql.param(quantities)}::numeric[]) as held(id, quantity)
         where s.id = held.id`,
  );
}

function assertHoldable(row: StockRowWithMaterial, quantity: Decimal): void {
  if (row.status !== '在库') {
    throw new AppError('NOT_IN_STOCK', `条码 ${row.sku} 的库存状态为「${row.status}」，只有在库的库存可以申请`, {
      stock_id: row.id,
      status: row.status,
    });
  }
  if (quantity.greaterThan(row.availableQuantity)) {
    throw new AppError('STOCK_SHORTAGE', `条码 ${row.sku} 可用数量不足：需要 ${quantity.toString()}，可用 ${toQuantityOrZero(row.availableQuantity)}`, {
      stock_id: row.id,
      needed: toQuantityOrZero(quantity.toString()),
      remaining: toQuantityOrZero(row.availableQuantity),
    });
  }
}
