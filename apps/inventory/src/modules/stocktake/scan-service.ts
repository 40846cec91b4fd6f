import { and, eq } from 'drizzle-orm';
import { Decimal, toQuantity, type UseCaseContext } from '@wms/platform';
import { stocktakeDrafts, SYSTEM_OPERATOR } from '../../db/schema/index.js';
import { findRowByBarcode } from '../stock/stock-scan-service.js';
import { movedReasonOf } from './book-moved.js';
import type { ScanQuery, ScannedItemView } from './schemas.js';
import { locationInScope } from './scope.js';
import { bookHidden, requireSession } from './sessions.js';

/**
 * GET /scan (contract §4): the item a barcode names in a session, with its count so far. Barcode rules of
 * spec 4.6 rule 5 (exact first; another company's 403 OTHER_COMPANY; unknown 404); any stock status;
 * in_scope tells whether /draft/add would take it. The book stays hidden while a blind session is active.
 */
export async function scanForCount(ctx: UseCaseContext, query: ScanQuery): Promise<ScannedItemView> {
  return ctx.read(async (q) => {
    const session = await requireSession(q, ctx.scope(), query.session_id);
    const row = await findRowByBarcode(q, { kind: 'one', company: session.companyName }, query.barcode);
    const [draft] = await q
      .select()
      .from(stocktakeDrafts)
      .where(and(eq(stocktakeDrafts.sessionId, session.id), eq(stocktakeDrafts.stockId, row.id)));
    const hidden = bookHidden(session);
    return {
      session_id: session.id,
      in_scope: locationInScope(session, row.warehouseLocation),
      stock_id: row.id,
      source_table: row.sourceTable,
      uuid: row.sku,
      sku: row.sku,
      base_id: row.baseId,
      material_name: row.materialName,
      spec_model: row.specModel,
      unit: row.unit,
      warehouse_location: row.warehouseLocation,
      batch_number: row.sourceTable === 'stock_product' ? '' : row.batchNumber,
      serial_number: row.serialNumber,
      status: row.status,
      stock_qty: hidden ? null : toQuantity(row.stockQuantity),
      counted_qty: draft ? toQuantity(draft.quantity) : null,
      diff_qty: hidden || !draft ? null : new Decimal(draft.quantity).minus(row.stockQuantity).toNumber(),
      scanned: Boolean(draft && draft.userId !== SYSTEM_OPERATOR),
      user_id: draft?.userId ?? null,
      scan_time: draft?.scanTime.toISOString() ?? null,
      remark: draft?.remark ?? null,
      book_moved: Boolean(draft && movedReasonOf(draft, row)),
    };
  });
}
