import type { Tx, UseCaseContext } from '@wms/platform';
import type { DefectiveGoodsRow } from '../../db/schema/index.js';
import { assertTakeable, lockLedgerEntry, takeFromLedger } from './ledger-lock.js';

/**
 * The scrap of held defective goods goes through the one scrap path (spec 2.8, 4.2; contract §8):
 *
 *   POST /inbound/stock/defective/:id/scrap-request  (and /stock/defective/:id/scrap-request)
 *   permission defective_scrap, idempotent; body { quantity, reason }
 *   → a scrap request in auto mode with one line { source_table: 'trans_defective_goods',
 *     stock_id: <ledger id>, scrap_qty, location }, reason_category 不良品报废. Nothing is reserved at
 *     submission; an execution that finds too little remaining fails (spec 4.2).
 *
 * The route belongs with the scrap module (modules/scrap/submit-ledger-service.ts), which registers it
 * and calls its own submission. The ledger side is here: readDefectiveForScrap checks the entry at
 * submission, scrapFromLedger is what the execution of an approved line calls.
 */
export interface DefectiveScrapRequestInput {
  quantity: number;
  reason: string;
}

/**
 * The entry a scrap request names, in the caller's scope (404 otherwise), locked, and checked by the
 * execution's own rule for the quantity asked (400 STATUS_NOT_ALLOWED / QUANTITY_EXCEEDS). Nothing is
 * held: other requests may name the same quantity, and the later execution fails then.
 */
export async function readDefectiveForScrap(ctx: UseCaseContext, tx: Tx, ledgerId: number, quantity: string): Promise<DefectiveGoodsRow> {
  const entry = await lockLedgerEntry(tx, ctx.scope(), ledgerId);
  assertTakeable(entry, quantity);
  return entry;
}

/**
 * Execution of an approved scrap line on a ledger entry: remaining_qty falls by the quantity (400
 * QUANTITY_EXCEEDS when too little remains, STATUS_NOT_ALLOWED when it is no longer 待处理) and at 0 the
 * entry is 已报废. Runs inside the execution's transaction; `company` is the scrap request's.
 */
export async function scrapFromLedger(tx: Tx, company: string, ledgerId: number, quantity: string, now: Date): Promise<DefectiveGoodsRow> {
  const entry = await lockLedgerEntry(tx, { kind: 'one', company }, ledgerId);
  return takeFromLedger(tx, entry, quantity, '已报废', now);
}
