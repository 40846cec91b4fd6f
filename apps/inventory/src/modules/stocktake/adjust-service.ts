import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { AppError, Decimal, queryRows, type Tx, type UseCaseContext } from '@wms/platform';
import { stocktakeAdjustments, stocktakeDrafts, type StocktakeDraftRow, type StocktakeSessionRow } from '../../db/schema/index.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { quantityText } from '../stock/quantities.js';
import { MOVED_REASON_TEXT, movedReasonOf } from './book-moved.js';
import type { AdjustBody, AdjustResult, SkipReason } from './schemas.js';
import { lockSession } from './sessions.js';

interface LockedRow {
  id: number;
  sku: string;
  base_id: number;
  source_table: string;
  stock_quantity: string;
  available_quantity: string;
  warehouse_location: string;
}

interface Applied {
  draft: StocktakeDraftRow;
  row: LockedRow;
  difference: Decimal;
  forced: boolean;
}

type Skipped = AdjustResult['skipped'][number];

/**
 * POST /adjust (contract §4, §8): applies the counted quantities of a finished session to the book, for the
 * listed items only (every differing item when uuids are absent). The stock rows are locked in id order;
 * available moves by the same difference as the physical quantity. Skipped and listed with the reason:
 * items without a count, deleted rows, rows whose book moved after the count (unless force), rows whose
 * available quantity cannot absorb a decrease (reserved or lent goods), and, when named, rows without a
 * difference. Each applied change writes a stocktake_adjustments record (audited) next to the stock row's
 * own audit entry; the low-stock check runs after commit for every material that fell.
 */
export async function adjustStock(ctx: UseCaseContext, input: AdjustBody): Promise<AdjustResult> {
  const force = input.force === true;
  const named = input.uuids ? [...new Set(input.uuids.map((uuid) => uuid.trim()).filter(Boolean))] : null;
  return ctx.transaction(async (tx) => {
    const session = await lockSession(tx, ctx.scope(), input.session_id, 'update');
    if (session.status !== 'finished') {
      throw new AppError('STATUS_NOT_ALLOWED', '盘点尚未结束：生成未盘记录结束盘点后才能调整库存', { status: session.status });
    }
    const drafts = await tx
      .select()
      .from(stocktakeDrafts)
      .where(and(eq(stocktakeDrafts.sessionId, session.id), named ? inArray(stocktakeDrafts.uuid, named) : undefined))
      .orderBy(asc(stocktakeDrafts.stockId));
    const skipped: Skipped[] = [];
    const found = new Set(drafts.map((draft) => draft.uuid));
    for (const uuid of named ?? []) {
      if (!found.has(uuid)) skipped.push({ uuid, stock_id: null, reason: 'not_counted', msg: `本次盘点没有 ${uuid} 的盘点记录` });
    }
    const rows = await lockRows(tx, drafts.map((draft) => draft.stockId));
    const applied: Applied[] = [];
    for (const draft of drafts) {
      const outcome = judge(draft, rows.get(draft.stockId), force, named !== null);
      if (outcome === null) continue;
      if ('reason' in outcome) skipped.push(outcome);
      else applied.push(outcome);
    }
    if (applied.length > 0) await apply(tx, ctx, session, applied);
    await scheduleLowStockCheck(ctx, tx, session.companyName, applied.map((change) => change.row.base_id));
    return {
      session_id: session.id,
      applied: applied.map(({ draft, row, difference, forced }) => ({
        uuid: draft.uuid,
        stock_id: row.id,
        before: new Decimal(row.stock_quantity).toNumber(),
        after: new Decimal(draft.quantity).toNumber(),
        difference: difference.toNumber(),
        forced,
      })),
      skipped,
    };
  });
}

/** What to do with one count: apply it, skip it with a reason, or nothing (no difference, not named). */
function judge(draft: StocktakeDraftRow, row: LockedRow | undefined, force: boolean, named: boolean): Applied | Skipped | null {
  const skip = (reason: SkipReason, msg: string): Skipped => ({ uuid: draft.uuid, stock_id: draft.stockId, reason, msg });
  if (!row) return skip('row_deleted', MOVED_REASON_TEXT.row_deleted);
  const difference = new Decimal(draft.quantity).minus(row.stock_quantity);
  if (difference.isZero()) return named ? skip('no_difference', '实盘数量与账面一致，无需调整') : null;
  const moved = movedReasonOf(draft, { stockQuantity: row.stock_quantity, warehouseLocation: row.warehouse_location });
  if (moved && !force) {
    return skip(
      'moved_after_count',
      `${MOVED_REASON_TEXT[moved]}（盘点时 ${quantityText(draft.bookQuantity)} @ ${draft.bookLocation || '—'}，现在 ${quantityText(row.stock_quantity)} @ ${row.warehouse_location || '—'}），请复盘或以 force 强制调整`,
    );
  }
  if (new Decimal(row.available_quantity).plus(difference).lt(0)) {
    const held = new Decimal(row.stock_quantity).minus(row.available_quantity);
    return skip(
      'available_short',
      `可用数量 ${quantityText(row.available_quantity)} 不足以扣减 ${quantityText(difference.neg())}（${quantityText(held)} 已预留或借出）`,
    );
  }
  return { draft, row, difference, forced: moved !== null };
}

async function lockRows(tx: Tx, ids: number[]): Promise<Map<number, LockedRow>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<LockedRow>(
    tx,
    sql`select id, sku, base_id, source_table, stock_quantity::text, available_quantity::text, warehouse_location
          from stock_rows where id = any(${sql.param([...new Set(ids)])}::int[]) order by id for update`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** Three statements whatever the number of rows: the guarded book update, the records, the drafts. */
async function apply(tx: Tx, ctx: UseCaseContext, session: StocktakeSessionRow, applied: Applied[]): Promise<void> {
  const now = ctx.now.toISOString();
  const ids = applied.map((change) => change.row.id);
  const counted = applied.map((change) => change.draft.quantity);
  const updated = await queryRows<{ id: number }>(
    tx,
    sql`update stock_rows s
           set stock_quantity = v.q, available_quantity = s.available_quantity + (v.q - s.stock_quantity), updated_at = ${now}::timestamptz
          from unnest(${sql.param(ids)}::int[], ${sql.param(counted)}::numeric[]) as v(id, q)
         where s.id = v.id and s.available_quantity + (v.q - s.stock_quantity) >= 0
         returning s.id`,
  );
  // The rows are locked and were checked above: a shortfall here is a broken invariant, never a partial adjust.
  if (updated.length !== applied.length) throw new AppError('CONFLICT', '库存已变化，请重试调整');
  await tx.insert(stocktakeAdjustments).values(
    applied.map(({ draft, row, difference, forced }) => ({
      sessionId: session.id,
      draftId: draft.id,
      stockId: row.id,
      sourceTable: draft.sourceTable,
      sku: row.sku,
      baseId: row.base_id,
      companyName: session.companyName,
      beforeQuantity: row.stock_quantity,
      afterQuantity: draft.quantity,
      difference: difference.toString(),
      forced,
      operator: ctx.actor.username,
      operatorId: ctx.actor.id,
      createdAt: ctx.now,
    })),
  );
  await tx.execute(
    sql`update stocktake_drafts d set adjusted_at = ${now}::timestamptz, adjusted_from = v.before, updated_at = ${now}::timestamptz
          from unnest(${sql.param(applied.map((change) => change.draft.id))}::int[], ${sql.param(applied.map((change) => change.row.stock_quantity))}::numeric[]) as v(id, before)
         where d.id = v.id`,
  );
}
