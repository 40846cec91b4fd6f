import { and, eq, sql } from 'drizzle-orm';
import {
  AppError,
  companyCondition,
  Decimal,
  notFound,
  toDecimalString,
  toQuantityOrZero,
  type CompanyScope,
  type Tx,
  type UseCaseContext,
} from '@wms/platform';
import {
  transOutbound,
  transReturn,
  type DefectiveGoodsRow,
  type OutboundRequestRow,
  type TransOutboundRow,
  type TransReturnRow,
} from '../../db/schema/index.js';
import { takeIntoCustody } from '../defective/ledger-entry.js';
import { toLedgerEntryView } from '../defective/ledger-mapper.js';
import { relaxLowStockLevels } from '../notifications/low-stock.js';
import { toRequestViewOf } from '../outbound/request-lookups.js';
import { putBackOnOriginalRow } from './original-row.js';
import { createReissueRequest, resolveReissueApplicant } from './reissue.js';
import { toReturnView } from './return-mapper.js';
import type { ReturnFromOutboundBody, ReturnResult } from './schemas.js';

/**
 * POST /inbound/stock/return-from-outbound (spec 4.1 "Return from outbound", contract §4). In one
 * transaction: lock the outbound line, check the quantity against what it shipped less earlier returns,
 * write the return, then
 *  - good: add the quantity back to the original stock row (which must still exist and be 在库);
 *  - defective: take it into custody in the ledger, stock untouched;
 *  - need_reissue: create an approval-free, strictly reserved outbound request for the reissue.
 * Any refusal (including a reissue shortage) rolls back the whole return.
 */
export async function returnFromOutbound(ctx: UseCaseContext, input: ReturnFromOutboundBody): Promise<ReturnResult> {
  return ctx.transaction(async (tx) => {
    const taken = await takeReturnFromOutbound(tx, ctx, input);
    return {
      return: toReturnView(taken.returned),
      ledger_entry: taken.ledgerEntry && toLedgerEntryView(taken.ledgerEntry),
      reissue_request: taken.reissue && (await toRequestViewOf(tx, taken.reissue)),
    };
  });
}

/** What a return wrote: the return, the ledger entry (defective) and the reissue request (when asked). */
export interface TakenReturn {
  returned: TransReturnRow;
  ledgerEntry: DefectiveGoodsRow | null;
  reissue: OutboundRequestRow | null;
}

/**
 * The return inside the caller's transaction: the use case above, and the internal production scrap,
 * which returns the item as defective and submits its scrap request in the same transaction.
 */
export async function takeReturnFromOutbound(tx: Tx, ctx: UseCaseContext, input: ReturnFromOutboundBody): Promise<TakenReturn> {
  const quantity = toDecimalString(input.quantity);
  const reissueQty = input.need_reissue ? reissueQuantityOf(input, quantity) : null;
  const line = await lockOutboundLine(tx, ctx.scope(), input.outbound_id);
  await assertReturnable(tx, line, quantity);
  const applicantId = reissueQty === null ? null : await resolveReissueApplicant(tx, line, input.reissue_applicant_id);

  const returned = await recordReturn(tx, ctx, line, input, quantity);
  const ledgerEntry = returned.returnType === 'defective' ? await takeIntoCustody(tx, returned, ctx.now) : null;
  if (returned.returnType === 'good') {
    await putBackOnOriginalRow(tx, line.stockId, quantity, line.sku, ctx.now);
    await relaxLowStockLevels(tx, [line.baseId], ctx.now);
  }
  const reissue =
    reissueQty === null || applicantId === null
      ? null
      : await createReissueRequest(tx, { line, returned, quantity: reissueQty, applicantId, now: ctx.now });
  return { returned, ledgerEntry, reissue };
}

/** reissue_qty defaults to the returned quantity and may not exceed it (spec 7: 400). */
function reissueQuantityOf(input: ReturnFromOutboundBody, quantity: string): string {
  if (input.reissue_qty == null) return quantity;
  const reissue = toDecimalString(input.reissue_qty);
  if (new Decimal(reissue).greaterThan(quantity)) {
    throw new AppError('QUANTITY_EXCEEDS', `补发数量 ${reissue} 不能超过退货数量 ${quantity}`, {
      field: 'reissue_qty',
      reissue_qty: toQuantityOrZero(reissue),
      quantity: toQuantityOrZero(quantity),
    });
  }
  return reissue;
}

/** The line is locked so that concurrent returns of it are counted one after the other. */
async function lockOutboundLine(tx: Tx, scope: CompanyScope, id: number): Promise<TransOutboundRow> {
  const [line] = await tx
    .select()
    .from(transOutbound)
    .where(and(eq(transOutbound.id, id), companyCondition(scope, transOutbound.companyName)))
    .for('update');
  if (!line) throw notFound('出库记录');
  return line;
}

/** Rule 6: never more than the line shipped less what earlier returns of it took back. */
async function assertReturnable(tx: Tx, line: TransOutboundRow, quantity: string): Promise<void> {
  const [earlier] = await tx
    .select({ returned: sql<string>`coalesce(sum(${transReturn.quantity}), 0)::text` })
    .from(transReturn)
    .where(eq(transReturn.outboundId, line.id));
  const returned = new Decimal(earlier?.returned ?? 0);
  const returnable = new Decimal(line.quantity).minus(returned);
  if (returnable.lessThan(quantity)) {
    throw new AppError(
      'QUANTITY_EXCEEDS',
      `退货数量 ${quantity} 超过可退数量 ${returnable.toString()}（出库 ${toQuantityOrZero(line.quantity)}，已退 ${returned.toString()}）`,
      {
        field: 'quantity',
        shipped: toQuantityOrZero(line.quantity),
        returned: toQuantityOrZero(returned.toString()),
        returnable: toQuantityOrZero(returnable.toString()),
      },
    );
  }
}

/** The return record; company and material fields are snapshots of the line (spec 2.7). */
async function recordReturn(
  tx: Tx,
  ctx: UseCaseContext,
  line: TransOutboundRow,
  input: ReturnFromOutboundBody,
  quantity: string,
): Promise<TransReturnRow> {
  const [row] = await tx
    .insert(transReturn)
    .values({
      outboundId: line.id,
      returnType: input.return_type,
      quantity,
      reason: input.reason?.trim() ?? '',
      operator: ctx.actor.username,
      operatorId: ctx.actor.id > 0 ? ctx.actor.id : null, // the system actor of the internal interface has no user id
      companyName: line.companyName,
      outboundNo: line.outboundNo,
      stockId: line.stockId,
      sourceTable: line.sourceTable,
      baseId: line.baseId,
      sku: line.sku,
      materialName: line.materialName,
      specModel: line.specModel,
      createdAt: ctx.now,
    })
    .returning();
  return row!;
}
