import { and, eq, sql } from 'drizzle-orm';
import type { Tx } from '@wms/platform';
import { products } from '../../db/schema/index.js';
import { upsertMaterial } from '../products/material-service.js';
import { receiveNotice, type AppliedNotice } from './receive-notice.js';
import type { ReceiverContext } from './receiver-context.js';
import type { ReceiverAnswer, StockInNotice } from './schemas.js';
import { normalizeSerial } from './serials.js';

/**
 * POST /integrations/inventory/stock-in (spec 4.1, §3; contract §6): the product with the notice's serial
 * moves 待仓库收货 → 已入库 (stocked_in_at), and learns its inventory base_id when it had none. A finished
 * product's model is recorded as a material. A product in any other status is not matched.
 */
export function receiveStockIn(ctx: ReceiverContext, notice: StockInNotice): Promise<ReceiverAnswer> {
  return receiveNotice(ctx, 'stock-in', notice, (tx) => applyStockIn(tx, notice, ctx.now));
}

async function applyStockIn(tx: Tx, notice: StockInNotice, now: Date): Promise<AppliedNotice> {
  const serial = normalizeSerial(notice.serial_number);
  let matched = false;
  if (serial) {
    const baseId = notice.base_id ?? null;
    const moved = await tx
      .update(products)
      .set({
        status: '已入库',
        stockedInAt: now,
        updatedAt: now,
        ...(baseId === null ? {} : { baseId: sql`coalesce(${products.baseId}, ${baseId}::integer)` }),
      })
      .where(and(eq(products.serialNumber, serial), eq(products.status, '待仓库收货')))
      .returning({ id: products.id });
    matched = moved.length > 0;
  }
  if (isFinishedProductModel(notice)) {
    await upsertMaterial(tx, { base_id: notice.base_id!, name: notice.material_name ?? '', category: notice.category! });
  }
  return { matched, reference: serial ?? notice.sku?.trim() ?? '' };
}

/** Product models are finished goods: a stock_product stock-in (or one that names no kind) with its material. */
function isFinishedProductModel(notice: StockInNotice): boolean {
  const kind = notice.source_table ?? 'stock_product';
  return kind === 'stock_product' && notice.base_id != null && notice.base_id > 0 && Boolean(notice.category?.trim());
}
