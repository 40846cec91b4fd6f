import { and, inArray } from 'drizzle-orm';
import { validationFailed, type Tx } from '@wms/platform';
import { products, type ProductStatus } from '../../db/schema/index.js';
import { receiveNotice, type AppliedNotice } from './receive-notice.js';
import type { ReceiverContext } from './receiver-context.js';
import type { OutboundNotice, ReceiverAnswer } from './schemas.js';
import { normalizeSerial } from './serials.js';

/**
 * Products the warehouse can ship: stocked in, or still awaiting receipt (its stock-in notice may have
 * been lost or ignored; the goods left the warehouse either way).
 */
const SHIPPABLE: ProductStatus[] = ['已入库', '待仓库收货'];

/**
 * POST /integrations/inventory/outbound (spec 4.1; contract §6): every item whose serial names a
 * shippable product moves it to 已出库 (shipped_at). outbound_type is accepted and ignored. Matched when
 * at least one product moved.
 */
export function receiveOutbound(ctx: ReceiverContext, notice: OutboundNotice): Promise<ReceiverAnswer> {
  return receiveNotice(ctx, 'outbound', notice, (tx) => applyOutbound(tx, notice, ctx.now));
}

/** items is required of this department's messages only (another department's is ignored before this). */
async function applyOutbound(tx: Tx, notice: OutboundNotice, now: Date): Promise<AppliedNotice> {
  if (notice.items === undefined) throw validationFailed('缺少必填字段 items', { field: 'items' });
  const serials = [...new Set(notice.items.map((item) => normalizeSerial(item.serial_number)).filter((s): s is string => s !== null))];
  let matched = false;
  if (serials.length > 0) {
    const moved = await tx
      .update(products)
      .set({ status: '已出库', shippedAt: now, updatedAt: now })
      .where(and(inArray(products.serialNumber, serials), inArray(products.status, SHIPPABLE)))
      .returning({ id: products.id });
    matched = moved.length > 0;
  }
  return { matched, reference: notice.outbound_no?.trim() ?? '' };
}
