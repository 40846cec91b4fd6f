import { and, asc, desc, eq, ilike, or, sql } from 'drizzle-orm';
import { companyCondition, isCrossDomain, likePattern, toQuantity, toQuantityOrZero, type UseCaseContext } from '@wms/platform';
import { materials, purchaseRequests, suppliers } from '../../db/schema/index.js';
import { hiddenMaterialFields } from '../materials/field-permissions.js';
import { companyPermissionHolders } from '../identity/permission-holders.js';
import { matchMaterial, toCandidate } from './material-match.js';
import { PURCHASE_APPROVER_CODE } from './purchase-mail.js';
import { purchasePriceVisibility } from './purchase-views.js';
import type { AutoFillView, MaterialCandidate, MaterialLookupQuery, SearchMaterialQuery } from './schemas.js';
import { selectSupplyItems, toSupplyItemView } from './supply-items.js';

/**
 * GET /purchase/approvers: who will decide the caller's requests — active users of the company holding
 * inbound_purchase:operation (they get the submission mail when they have an address). A cross-domain
 * caller names the company with `company`; without one (or without a company at all) the list is empty.
 */
export async function listApprovers(ctx: UseCaseContext, company: string | undefined) {
  const target = isCrossDomain(ctx.actor) ? company?.trim() || null : ctx.actor.company;
  if (!target) return [];
  const holders = await ctx.read((q) => companyPermissionHolders(q, target, PURCHASE_APPROVER_CODE));
  return holders.map((holder) => ({ id: holder.id, username: holder.username, name: holder.name }));
}

/**
 * GET /purchase/search-material: materials of the caller's scope whose name or spec_model contains the
 * keyword, those whose name starts with it first, then by id; at most `limit` (20, capped at 50).
 */
export async function searchMaterials(ctx: UseCaseContext, query: SearchMaterialQuery): Promise<MaterialCandidate[]> {
  const keyword = query.keyword.trim();
  if (!keyword) return [];
  const pattern = likePattern(keyword);
  const rows = await ctx.read((q) =>
    q
      .select({
        id: materials.id,
        name: materials.name,
        specModel: materials.specModel,
        unit: materials.unit,
        category: materials.category,
        companyName: materials.companyName,
      })
      .from(materials)
      .where(and(companyCondition(ctx.scope(query.company), materials.companyName), or(ilike(materials.name, pattern), ilike(materials.specModel, pattern))))
      .orderBy(sql`(${materials.name} ilike ${pattern.slice(1)}) desc`, asc(materials.id))
      .limit(query.limit ?? 20),
  );
  return rows.map(toCandidate);
}

/**
 * GET /purchase/auto-fill: what a purchase item of one material would be filled with — the material,
 * its supply and the pool's suggestion (whether or not it is in the pool), the supplier last used, and
 * the newest earlier request of the material (its prices per the caller's price codes). The material
 * is named by base_id or by name + spec_model, matched as in a submission.
 */
export async function autoFill(ctx: UseCaseContext, query: MaterialLookupQuery): Promise<AutoFillView> {
  const scope = ctx.scope(query.company);
  const hidden = hiddenMaterialFields(ctx.actor);
  const prices = purchasePriceVisibility(ctx.actor);
  return ctx.read(async (q) => {
    const material = await matchMaterial(q, scope, query);
    const [item] = await selectSupplyItems(q).where(eq(materials.id, material.id));
    const [last] = await q
      .select({ row: purchaseRequests, supplierName: suppliers.name })
      .from(purchaseRequests)
      .leftJoin(suppliers, eq(suppliers.id, purchaseRequests.supplierId))
      .where(eq(purchaseRequests.baseId, material.id))
      .orderBy(desc(purchaseRequests.id))
      .limit(1);
    const view = toSupplyItemView(item!, hidden);
    const lastPurchase: AutoFillView['last_purchase'] = last
      ? {
          request_no: last.row.requestNo,
          purchase_date: last.row.purchaseDate,
          quantity: toQuantityOrZero(last.row.quantity),
          status: last.row.status,
          unit_price: toQuantity(last.row.unitPrice),
          tax_rate: toQuantity(last.row.taxRate),
          supplier_id: last.row.supplierId,
          supplier_name: last.supplierName,
        }
      : null;
    if (lastPurchase && !prices.unitPrice) delete lastPurchase.unit_price;
    if (lastPurchase && !prices.taxRate) delete lastPurchase.tax_rate;
    return { ...view, in_pool: view.alert_level !== 'none', last_purchase: lastPurchase };
  });
}
