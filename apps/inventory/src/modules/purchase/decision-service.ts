import { and, asc, eq, inArray } from 'drizzle-orm';
import { AppError, companyCondition, notFound, validationFailed, type Tx, type UseCaseContext } from '@wms/platform';
import { purchaseRequests, type PurchaseRequestRow } from '../../db/schema/index.js';
import { relaxLowStockLevels, scheduleLowStockCheck } from '../notifications/low-stock.js';
import { sendDecisionMails } from './purchase-mail.js';
import { decisionChanges, movePurchase, moveRefusal, type PurchaseDecision } from './purchase-status.js';
import { purchasePriceVisibility, selectPurchaseRecords, toPurchaseView, type PurchaseRecord } from './purchase-views.js';
import { inBatch, isBatchKey } from './request-no.js';
import type { BatchDecisionBody, BatchDecisionResult, DecisionBody, PurchaseRequestView } from './schemas.js';

/**
 * PATCH /purchase/{id}/approve (inbound_purchase:operation; idempotency lock): approve 0 → 1,
 * reject 0 → 2, close 1 → 4, under the row lock and the status guard. Another company's request is 404;
 * a move the status does not allow is 400 STATUS_NOT_ALLOWED. The requester's mail goes after commit.
 */
export async function decidePurchase(ctx: UseCaseContext, id: number, body: DecisionBody): Promise<PurchaseRequestView> {
  const reason = body.reason?.trim() || null;
  const record = await ctx.transaction(async (tx) => {
    const [request] = await tx
      .select()
      .from(purchaseRequests)
      .where(and(eq(purchaseRequests.id, id), companyCondition(ctx.scope(), purchaseRequests.companyName)))
      .for('update');
    if (!request) throw notFound('采购申请');
    const moved = await movePurchase(tx, request, body.action, decisionChanges(body.action, ctx.actor.id, ctx.now, reason), ctx.now);
    return (await settle(ctx, tx, body.action, [moved], reason))[0]!;
  });
  return toPurchaseView(record, purchasePriceVisibility(ctx.actor));
}

/**
 * POST /purchase/batch-approve: the same decision on several requests, named by ids or by batch_key
 * (exactly one of them), in one transaction with the rows locked in id order. A request that is unknown,
 * of another company or whose status does not allow the move is a failure in the answer, not an error;
 * the others move. An unknown batch key is 404.
 */
export async function decidePurchaseBatch(ctx: UseCaseContext, body: BatchDecisionBody): Promise<BatchDecisionResult> {
  if ((body.ids === undefined) === (body.batch_key === undefined)) {
    throw validationFailed('ids 与 batch_key 必须提供且只能提供其中一个', { field: body.ids === undefined ? 'ids' : 'batch_key' });
  }
  const batchKey = body.batch_key?.trim();
  if (batchKey !== undefined && !isBatchKey(batchKey)) {
    throw validationFailed(`batch_key 格式不正确: ${batchKey}（应为 PUR-<yyyymmdd>-<hhmm>-<批次序号>）`, { field: 'batch_key' });
  }
  const ids = body.ids ? [...new Set(body.ids)] : undefined;
  const reason = body.reason?.trim() || null;
  const outcome = await ctx.transaction(async (tx) => {
    const requests = await tx
      .select()
      .from(purchaseRequests)
      .where(and(ids ? inArray(purchaseRequests.id, ids) : inBatch(batchKey!), companyCondition(ctx.scope(), purchaseRequests.companyName)))
      .orderBy(asc(purchaseRequests.id))
      .for('update');
    if (batchKey !== undefined && requests.length === 0) throw notFound(`采购批次 ${batchKey}`);
    const failed: BatchDecisionResult['failed'] = [];
    const moved: PurchaseRequestRow[] = [];
    for (const request of requests) {
      const refusal = moveRefusal(request, body.action);
      if (refusal) failed.push(failureOf(request.id, request.requestNo, refusal));
      else moved.push(await movePurchase(tx, request, body.action, decisionChanges(body.action, ctx.actor.id, ctx.now, reason), ctx.now));
    }
    for (const id of ids ?? []) {
      if (!requests.some((request) => request.id === id)) failed.push(failureOf(id, null, notFound('采购申请')));
    }
    const order = ids ?? requests.map((request) => request.id);
    failed.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    return { failed, records: await settle(ctx, tx, body.action, moved, reason) };
  });
  const prices = purchasePriceVisibility(ctx.actor);
  return { action: body.action, success: outcome.records.map((record) => toPurchaseView(record, prices)), failed: outcome.failed };
}

function failureOf(id: number, requestNo: string | null, error: AppError): BatchDecisionResult['failed'][number] {
  const status = error.extras.status;
  return { id, request_no: requestNo, code: error.code, msg: error.message, ...(typeof status === 'number' ? { status } : {}) };
}

/**
 * What follows moved requests inside the transaction: supply changes (approval adds in-transit
 * quantity, which may lift a material above an alert level; closing removes it, which may cross one:
 * checked after commit), the requester mails after commit, and the moved requests' records.
 */
async function settle(ctx: UseCaseContext, tx: Tx, decision: PurchaseDecision, moved: PurchaseRequestRow[], reason: string | null): Promise<PurchaseRecord[]> {
  if (moved.length === 0) return [];
  if (decision === 'approve') await relaxLowStockLevels(tx, moved.map((request) => request.baseId), ctx.now);
  if (decision === 'close') {
    for (const company of new Set(moved.map((request) => request.companyName))) {
      await scheduleLowStockCheck(ctx, tx, company, moved.filter((request) => request.companyName === company).map((request) => request.baseId));
    }
  }
  const records = await selectPurchaseRecords(tx)
    .where(inArray(purchaseRequests.id, moved.map((request) => request.id)))
    .orderBy(asc(purchaseRequests.id));
  ctx.afterCommit(() => sendDecisionMails(ctx, decision, records, reason));
  return records;
}
