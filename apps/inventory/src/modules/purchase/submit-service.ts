import { asc, eq, inArray } from 'drizzle-orm';
import { AppError, beijingDate, can, Decimal, toDecimalString, type Tx, type UseCaseContext, validationFailed } from '@wms/platform';
import { PURCHASE_STATUS, purchaseRequests, suppliers, users } from '../../db/schema/index.js';
import { assertCompanyForRecord, assertCompanyNamed } from '../identity/company-rules.js';
import { matchMaterials, type MatchedMaterial } from './material-match.js';
import { sendSubmissionMail } from './purchase-mail.js';
import { purchasePriceVisibility, selectPurchaseRecords, TAX_RATE, toPurchaseView, UNIT_PRICE } from './purchase-views.js';
import { batchKeyOf, beijingStamp, requestNoOf, takeBatchSeq } from './request-no.js';
import type { PurchaseBatchView, PurchaseItemBody, SubmitPurchaseBody } from './schemas.js';

/** numeric(14,2): the largest total a request can store. */
const MAX_TOTAL = new Decimal('999999999999.99');

/**
 * POST /purchase (any logged-in user; idempotency lock): one submission of one or many items becomes
 * one request per item sharing a batch key (spec 2.9). Everything is checked before anything is
 * written — the company a cross-domain caller names, materials (matched by name + spec_model when no
 * base_id), one company for the whole submission, suppliers of that company, real dates — then the
 * day's batch_seq is taken under its lock and the rows are inserted. The approvers' mail goes out after the commit.
 * Price fields the caller may not read are ignored (they are field codes for writing too).
 */
export async function submitPurchase(ctx: UseCaseContext, body: SubmitPurchaseBody): Promise<PurchaseBatchView> {
  assertCompanyNamed(ctx.actor, body.company_name);
  const stamp = beijingStamp(ctx.now);
  const records = await ctx.transaction(async (tx) => {
    // a cross-domain caller's company must exist (400 UNKNOWN_COMPANY, decisions Platform 17), not read as "material not found"
    await assertCompanyForRecord(tx, ctx.actor, body.company_name?.trim() ?? '');
    const matched = await matchMaterials(tx, ctx.scope(body.company_name), body.items);
    const company = oneCompany(matched);
    await checkSuppliers(tx, company, body.items);
    const requesterEmail = await emailOf(tx, ctx.actor.id);
    const batchSeq = await takeBatchSeq(tx, stamp.day);
    const inserted = await tx
      .insert(purchaseRequests)
      .values(
        body.items.map((item, index) => ({
          requestNo: requestNoOf(stamp, batchSeq, index + 1),
          baseId: matched[index]!.id,
          companyName: company,
          ...priceColumns(ctx, item, index),
          purchaseDate: item.purchase_date ?? beijingDate(ctx.now),
          expectedDate: item.expected_date ?? null,
          supplierId: item.supplier_id ?? null,
          requesterId: ctx.actor.id,
          requesterEmail,
          status: PURCHASE_STATUS.pending,
          remark: item.remark?.trim() || null,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })),
      )
      .returning({ id: purchaseRequests.id });
    const ids = inserted.map((row) => row.id);
    const created = await selectPurchaseRecords(tx).where(inArray(purchaseRequests.id, ids)).orderBy(asc(purchaseRequests.id));
    ctx.afterCommit(() => sendSubmissionMail(ctx, company, created));
    return created;
  });
  const prices = purchasePriceVisibility(ctx.actor);
  return { batch_key: batchKeyOf(records[0]!.row.requestNo), requests: records.map((record) => toPurchaseView(record, prices)) };
}

/** All items of one submission belong to one company: a batch is approved by that company's purchasers. */
function oneCompany(matched: MatchedMaterial[]): string {
  const companies = [...new Set(matched.map((material) => material.companyName))];
  if (companies.length > 1) {
    throw validationFailed(`一次提交的物料必须属于同一公司（本次涉及 ${companies.join('、')}）`, { field: 'items', companies });
  }
  return companies[0]!;
}

/** A supplier named on an item must be one of the request's company (else 400 naming the item). */
async function checkSuppliers(tx: Tx, company: string, items: readonly PurchaseItemBody[]): Promise<void> {
  const ids = [...new Set(items.flatMap((item) => (item.supplier_id == null ? [] : [item.supplier_id])))];
  if (ids.length === 0) return;
  const found = await tx.select({ id: suppliers.id, companyName: suppliers.companyName }).from(suppliers).where(inArray(suppliers.id, ids));
  items.forEach((item, index) => {
    if (item.supplier_id == null) return;
    if (!found.some((supplier) => supplier.id === item.supplier_id && supplier.companyName === company)) {
      // an unknown id, or another company's, is 404 (contract §7)
      throw new AppError('NOT_FOUND', `第 ${index + 1} 项：供应商 ${item.supplier_id} 不存在或不属于 ${company}`, { field: `items[${index}].supplier_id` });
    }
  });
}

async function emailOf(tx: Tx, userId: number): Promise<string | null> {
  const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return user?.email?.trim() || null;
}

/** unit_price and tax_rate as sent when the caller holds their codes; total = quantity × unit price (2 places, half-up). */
function priceColumns(ctx: UseCaseContext, item: PurchaseItemBody, index: number) {
  const unitPrice = can(ctx.actor, UNIT_PRICE) && item.unit_price != null ? new Decimal(item.unit_price).toDecimalPlaces(2, Decimal.ROUND_HALF_UP) : null;
  const total = unitPrice === null ? null : unitPrice.times(toDecimalString(item.quantity)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  if (total !== null && total.greaterThan(MAX_TOTAL)) {
    throw validationFailed(`第 ${index + 1} 项：总价超出上限 ${MAX_TOTAL.toString()}`, { field: `items[${index}].unit_price` });
  }
  return {
    quantity: toDecimalString(item.quantity),
    unitPrice: unitPrice?.toFixed(2) ?? null,
    totalPrice: total?.toFixed(2) ?? null,
    taxRate: can(ctx.actor, TAX_RATE) && item.tax_rate != null ? toDecimalString(item.tax_rate) : null,
  };
}
