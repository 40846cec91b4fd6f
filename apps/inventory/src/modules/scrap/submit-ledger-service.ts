import { toDecimalString, type UseCaseContext } from '@wms/platform';
import { readDefectiveForScrap } from '../defective/scrap-request-seam.js';
import { createScrapRequest } from './create-request.js';
import { toScrapRequestViewOf } from './request-views.js';
import type { LedgerScrapBody, ScrapRequestView } from './schemas.js';

/**
 * POST /inbound/stock/defective/:id/scrap-request (spec 4.2, 3.8): a scrap request in auto mode for part
 * or all of a held item (reason category 不良品报废). The entry is checked but nothing is held: several
 * requests may name the same quantity, and an execution that then finds too little remaining fails
 * cleanly (spec 4.2). Unknown or another company's entry 404.
 */
export async function submitLedgerScrap(ctx: UseCaseContext, ledgerId: number, input: LedgerScrapBody): Promise<ScrapRequestView> {
  const quantity = toDecimalString(input.quantity);
  return ctx.transaction(async (tx) => {
    const entry = await readDefectiveForScrap(ctx, tx, ledgerId, quantity);
    const created = await createScrapRequest(tx, ctx.now, {
      applicantId: ctx.actor.id,
      companyName: entry.companyName,
      mode: 'auto',
      reason: input.reason,
      reasonCategory: '不良品报废',
      lines: [{ source_table: 'trans_defective_goods', stock_id: entry.id, base_id: entry.baseId, quantity, location: '', reserved: false }],
      approverIds: input.approver_ids,
      remark: input.remark,
    });
    return toScrapRequestViewOf(tx, created);
  });
}
