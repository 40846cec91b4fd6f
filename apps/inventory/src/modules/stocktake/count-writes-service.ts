import { sql } from 'drizzle-orm';
import { AppError, queryRows, toDecimalString, type UseCaseContext } from '@wms/platform';
import { findRowByBarcode } from '../stock/stock-scan-service.js';
import { readDraftView } from './draft-views.js';
import type { AddDraftBody, DraftView, UpdateQuantityBody } from './schemas.js';
import { locationInScope } from './scope.js';
import { assertActive, lockSession } from './sessions.js';

/**
 * POST /draft/add (spec 2.10, 4.6 rule 5; contract §4): counts one item by its barcode. Exact match first,
 * another company's barcode 403 OTHER_COMPANY, unknown 404; any stock status. An item outside the frozen
 * scope is 400 OUTSIDE_SCOPE. One row per (session, item): parallel scans upsert the same row; the last scan
 * sets the quantity, the operator, the scan time and the book it was counted against; remark changes only
 * when sent.
 */
export async function addDraft(ctx: UseCaseContext, input: AddDraftBody): Promise<DraftView> {
  const quantity = toDecimalString(input.quantity);
  return ctx.transaction(async (tx) => {
    const session = await lockSession(tx, ctx.scope(), input.session_id, 'share');
    assertActive(session);
    const row = await findRowByBarcode(tx, { kind: 'one', company: session.companyName }, input.barcode);
    if (!locationInScope(session, row.warehouseLocation)) {
      throw new AppError('OUTSIDE_SCOPE', `条码 ${row.sku} 的库位「${row.warehouseLocation || '（无）'}」不在本次盘点范围内`, {
        sku: row.sku,
        warehouse_location: row.warehouseLocation,
      });
    }
    const now = ctx.now.toISOString();
    const [draft] = await queryRows<{ id: number }>(
      tx,
      sql`insert into stocktake_drafts (session_id, uuid, stock_id, source_table, base_id, user_id, operator_id, quantity, remark,
            scan_time, company_name, book_quantity, book_location, created_at, updated_at)
          select ${session.id}, s.sku, s.id, s.source_table, s.base_id, ${ctx.actor.name}, ${ctx.actor.id}, ${quantity}::numeric,
                 ${input.remark ?? null}, ${now}::timestamptz, ${session.companyName}, s.stock_quantity, s.warehouse_location,
                 ${now}::timestamptz, ${now}::timestamptz
            from stock_rows s where s.id = ${row.id}
          on conflict (session_id, uuid) do update set
            quantity = excluded.quantity, user_id = excluded.user_id, operator_id = excluded.operator_id,
            scan_time = excluded.scan_time, book_quantity = excluded.book_quantity, book_location = excluded.book_location,
            updated_at = excluded.updated_at ${input.remark !== undefined ? sql`, remark = excluded.remark` : sql``}
          returning id`,
    );
    return readDraftView(tx, draft!.id);
  });
}

/**
 * POST /stocktake/update-quantity (spec 4.6 rule 4): corrects the count of an item that already has a draft
 * (404 asking to scan first otherwise); remark changes only when sent. A correction is a new count: it
 * records the operator, the time and the book as it stands now.
 */
export async function updateQuantity(ctx: UseCaseContext, input: UpdateQuantityBody): Promise<DraftView> {
  const quantity = toDecimalString(input.quantity);
  return ctx.transaction(async (tx) => {
    const session = await lockSession(tx, ctx.scope(), input.session_id, 'share');
    assertActive(session);
    const now = ctx.now.toISOString();
    const [draft] = await queryRows<{ id: number }>(
      tx,
      sql`update stocktake_drafts d set quantity = ${quantity}::numeric, user_id = ${ctx.actor.name}, operator_id = ${ctx.actor.id},
            scan_time = ${now}::timestamptz, updated_at = ${now}::timestamptz,
            book_quantity = coalesce((select s.stock_quantity from stock_rows s where s.id = d.stock_id), d.book_quantity),
            book_location = coalesce((select s.warehouse_location from stock_rows s where s.id = d.stock_id), d.book_location)
            ${input.remark !== undefined ? sql`, remark = ${input.remark}` : sql``}
          where d.session_id = ${session.id} and d.stock_id = ${input.stock_id} and d.source_table = ${input.source_table}
          returning d.id`,
    );
    if (!draft) throw new AppError('NOT_FOUND', '该物品在本次盘点中还没有盘点记录，请先扫码盘点', { stock_id: input.stock_id });
    return readDraftView(tx, draft.id);
  });
}

