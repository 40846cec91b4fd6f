import { eq } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { can, toQuantity, toQuantityOrZero, type Actor, type Queryable } from '@wms/platform';
import { materials, purchaseRequests, suppliers, users, type PurchaseRequestRow } from '../../db/schema/index.js';
import { purchaseStatusLabel } from './purchase-status.js';
import { batchKeyOf } from './request-no.js';
import type { PurchaseRequestView } from './schemas.js';

const approvers = alias(users, 'approver');

/** A request with what its views and mails show of its material, people and supplier. */
export interface PurchaseRecord {
  row: PurchaseRequestRow;
  materialName: string;
  specModel: string;
  unit: string;
  category: string;
  requesterName: string;
  /** The requester's address today (the mail goes there); the stored requester_email is the one at submission. */
  requesterUserEmail: string | null;
  approverName: string | null;
  supplierName: string | null;
}

/** Requests joined with everything their view shows: one query for a whole page, never one per request. */
export function selectPurchaseRecords(q: Queryable) {
  return q
    .select({
      row: purchaseRequests,
      materialName: materials.name,
      specModel: materials.specModel,
      unit: materials.unit,
      category: materials.category,
      requesterName: users.name,
      requesterUserEmail: users.email,
      approverName: approvers.name,
      supplierName: suppliers.name,
    })
    .from(purchaseRequests)
    .innerJoin(materials, eq(materials.id, purchaseRequests.baseId))
    .innerJoin(users, eq(users.id, purchaseRequests.requesterId))
    .leftJoin(approvers, eq(approvers.id, purchaseRequests.approverId))
    .leftJoin(suppliers, eq(suppliers.id, purchaseRequests.supplierId));
}

/** Which price fields the caller may read (spec 2.9); SUPER_ADMIN passes every code. */
export interface PurchasePriceVisibility {
  unitPrice: boolean;
  totalPrice: boolean;
  taxRate: boolean;
}

export const UNIT_PRICE = 'inbound_purchase:unit_price';
export const TOTAL_PRICE = 'inbound_purchase:total_price';
export const TAX_RATE = 'inbound_purchase:tax_rate';

export function purchasePriceVisibility(actor: Actor): PurchasePriceVisibility {
  return { unitPrice: can(actor, UNIT_PRICE), totalPrice: can(actor, TOTAL_PRICE), taxRate: can(actor, TAX_RATE) };
}

const iso = (at: Date | null) => at?.toISOString() ?? null;

/** The only way a purchase request leaves the service; a price field the caller may not read is absent. */
export function toPurchaseView(record: PurchaseRecord, prices: PurchasePriceVisibility): PurchaseRequestView {
  const { row } = record;
  const view: PurchaseRequestView = {
    id: row.id,
    request_no: row.requestNo,
    batch_key: batchKeyOf(row.requestNo),
    base_id: row.baseId,
    material_name: record.materialName,
    spec_model: record.specModel,
    unit: record.unit,
    category: record.category,
    company_name: row.companyName,
    quantity: toQuantityOrZero(row.quantity),
    unit_price: toQuantity(row.unitPrice),
    total_price: toQuantity(row.totalPrice),
    tax_rate: toQuantity(row.taxRate),
    purchase_date: row.purchaseDate,
    expected_date: row.expectedDate,
    supplier_id: row.supplierId,
    supplier_name: record.supplierName,
    requester_id: row.requesterId,
    requester_name: record.requesterName,
    requester_email: row.requesterEmail,
    status: row.status,
    status_label: purchaseStatusLabel(row.status),
    remark: row.remark,
    decision_reason: row.decisionReason,
    approver_id: row.approverId,
    approver_name: record.approverName,
    approved_at: iso(row.approvedAt),
    rejected_at: iso(row.rejectedAt),
    closed_at: iso(row.closedAt),
    completed_at: iso(row.completedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (!prices.unitPrice) delete view.unit_price;
  if (!prices.totalPrice) delete view.total_price;
  if (!prices.taxRate) delete view.tax_rate;
  return view;
}
