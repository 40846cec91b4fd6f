import { and, asc, count, desc, eq, ilike, or, type SQL } from 'drizzle-orm';
import { AppError, beijingDate, can, companyCondition, dayRangeCondition, keywordMatch, likePattern, notFound, type Page, pageOf, pagingOf, type UseCaseContext, validationFailed } from '@wms/platform';
import { materials, PURCHASE_STATUS, purchaseRequests, users, type PurchaseStatus } from '../../db/schema/index.js';
import { purchasePriceVisibility, selectPurchaseRecords, toPurchaseView } from './purchase-views.js';
import { beijingStamp, inBatch, isBatchKey, lastBatchSeq } from './request-no.js';
import type { ApprovedUnstockedQuery, PurchaseBatchView, PurchaseListQuery, PurchaseRequestView, PurchaseSearchType } from './schemas.js';

/** Reading somebody else's request (contract §3): the company-wide purchase permission. */
export const COMPANY_WIDE = 'inbound_purchase';

function keywordCondition(keyword: string | undefined, searchType: PurchaseSearchType = 'all'): SQL | undefined {
  const text = keyword?.trim();
  if (!text) return undefined;
  const pattern = likePattern(text);
  const requester = or(ilike(users.name, pattern), ilike(users.username, pattern));
  const byType: Record<Exclude<PurchaseSearchType, 'all'>, SQL | undefined> = {
    no: ilike(purchaseRequests.requestNo, pattern),
    name: ilike(materials.name, pattern),
    spec_model: ilike(materials.specModel, pattern),
    requester,
  };
  return searchType === 'all' ? or(...Object.values(byType), ilike(purchaseRequests.remark, pattern)) : byType[searchType];
}

/**
 * GET /purchase (inbound_buy): the company's requests, newest first; status, keyword by search_type
 * and the closed interval start_date ≤ purchase_date ≤ end_date. One query for the page, one count.
 */
export async function listPurchases(ctx: UseCaseContext, query: PurchaseListQuery): Promise<Page<PurchaseRequestView>> {
  const paging = pagingOf(query);
  const where = and(
    companyCondition(ctx.scope(query.company), purchaseRequests.companyName),
    query.status === undefined ? undefined : eq(purchaseRequests.status, query.status as PurchaseStatus),
    keywordCondition(query.keyword, query.search_type),
    dayRangeCondition(purchaseRequests.purchaseDate, query.start_date, query.end_date),
  );
  const prices = purchasePriceVisibility(ctx.actor);
  return ctx.read(async (q) => {
    const records = await selectPurchaseRecords(q).where(where).orderBy(desc(purchaseRequests.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q
      .select({ n: count() })
      .from(purchaseRequests)
      .innerJoin(materials, eq(materials.id, purchaseRequests.baseId))
      .innerJoin(users, eq(users.id, purchaseRequests.requesterId))
      .where(where);
    return pageOf(records.map((record) => toPurchaseView(record, prices)), total?.n ?? 0, paging);
  });
}

/** GET /purchase/{id}: another company's is 404; somebody else's needs the company-wide permission (403). */
export async function getPurchase(ctx: UseCaseContext, id: number): Promise<PurchaseRequestView> {
  const [record] = await ctx.read((q) =>
    selectPurchaseRecords(q).where(and(eq(purchaseRequests.id, id), companyCondition(ctx.scope(), purchaseRequests.companyName))),
  );
  if (!record) throw notFound('采购申请');
  if (record.row.requesterId !== ctx.actor.id && !can(ctx.actor, COMPANY_WIDE)) {
    throw new AppError('FORBIDDEN', `只能查看自己提交的采购申请（查看他人的需要 ${COMPANY_WIDE}）`);
  }
  return toPurchaseView(record, purchasePriceVisibility(ctx.actor));
}

/**
 * GET /purchase/batch?batch_key=: the requests of one submission in item order, for its requester or a
 * holder of the company-wide permission (403 otherwise). Both number shapes; none in scope is 404.
 */
export async function getPurchaseBatch(ctx: UseCaseContext, batchKey: string): Promise<PurchaseBatchView> {
  const key = batchKey.trim();
  if (!isBatchKey(key)) throw validationFailed(`batch_key 格式不正确: ${key}`, { field: 'batch_key' });
  const records = await ctx.read((q) =>
    selectPurchaseRecords(q)
      .where(and(inBatch(key), companyCondition(ctx.scope(), purchaseRequests.companyName)))
      .orderBy(asc(purchaseRequests.requestNo)),
  );
  if (records.length === 0) throw notFound(`采购批次 ${key}`);
  if (records.some((record) => record.row.requesterId !== ctx.actor.id) && !can(ctx.actor, COMPANY_WIDE)) {
    throw new AppError('FORBIDDEN', `只能查看自己提交的采购批次（查看他人的需要 ${COMPANY_WIDE}）`);
  }
  const prices = purchasePriceVisibility(ctx.actor);
  return { batch_key: key, requests: records.map((record) => toPurchaseView(record, prices)) };
}

/**
 * GET /purchase/approved-unstocked (inbound_buy): approved requests waiting for their stock-in, oldest
 * first; a stock-in naming one completes it and it leaves this list.
 */
export async function listApprovedUnstocked(ctx: UseCaseContext, query: ApprovedUnstockedQuery): Promise<Page<PurchaseRequestView>> {
  const paging = pagingOf(query);
  const where = and(
    companyCondition(ctx.scope(query.company), purchaseRequests.companyName),
    eq(purchaseRequests.status, PURCHASE_STATUS.approved),
    query.base_id === undefined ? undefined : eq(purchaseRequests.baseId, query.base_id),
    keywordMatch(query.keyword, purchaseRequests.requestNo, materials.name, materials.specModel),
    dayRangeCondition(purchaseRequests.purchaseDate, query.start_date, query.end_date),
  );
  const prices = purchasePriceVisibility(ctx.actor);
  return ctx.read(async (q) => {
    const records = await selectPurchaseRecords(q).where(where).orderBy(asc(purchaseRequests.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q
      .select({ n: count() })
      .from(purchaseRequests)
      .innerJoin(materials, eq(materials.id, purchaseRequests.baseId))
      .where(where);
    return pageOf(records.map((record) => toPurchaseView(record, prices)), total?.n ?? 0, paging);
  });
}

/** GET /purchase/next-batch-seq: what today's next submission would get (a hint; taken only at submission). */
export async function nextBatchSeq(ctx: UseCaseContext): Promise<{ date: string; next_batch_seq: number }> {
  const last = await ctx.read((q) => lastBatchSeq(q, beijingStamp(ctx.now).day));
  return { date: beijingDate(ctx.now), next_batch_seq: last + 1 };
}
