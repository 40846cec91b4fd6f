import { inArray } from 'drizzle-orm';
import { toQuantityOrZero, type Queryable } from '@wms/platform';
import { materials, stockRows, users, type BorrowRequestRow } from '../../db/schema/index.js';
import { statusLabel } from './request-status.js';
import type { BorrowRequestView } from './schemas.js';

/** What the lines of a page of requests refer to, looked up once per page. */
interface RequestLookups {
  userNames: Map<number, string>;
  materials: Map<number, { name: string; specModel: string; unit: string }>;
  rows: Map<number, { sku: string; warehouseLocation: string }>;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** Applicant names, materials and stock rows of a whole page of requests: three queries, never one per row. */
async function lookupsFor(q: Queryable, requests: readonly BorrowRequestRow[]): Promise<RequestLookups> {
  const userIds = [...new Set(requests.map((request) => request.applicantId))];
  const lines = requests.flatMap((request) => request.itemsJson);
  const baseIds = [...new Set(lines.map((line) => line.base_id))];
  const stockIds = [...new Set(lines.map((line) => line.stock_id))];
  // One after another: inside a transaction the three share one connection.
  const userRows = userIds.length ? await q.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, userIds)) : [];
  const materialRows = baseIds.length
    ? await q
        .select({ id: materials.id, name: materials.name, specModel: materials.specModel, unit: materials.unit })
        .from(materials)
        .where(inArray(materials.id, baseIds))
    : [];
  const rowRows = stockIds.length
    ? await q
        .select({ id: stockRows.id, sku: stockRows.sku, warehouseLocation: stockRows.warehouseLocation })
        .from(stockRows)
        .where(inArray(stockRows.id, stockIds))
    : [];
  return {
    userNames: new Map(userRows.map((user) => [user.id, user.name])),
    materials: new Map(materialRows.map((material) => [material.id, material])),
    rows: new Map(rowRows.map((row) => [row.id, row])),
  };
}

/** The only way a borrow request leaves the service. */
function toRequestView(row: BorrowRequestRow, lookups: RequestLookups): BorrowRequestView {
  return {
    id: row.id,
    biz_type: row.bizType,
    applicant_id: row.applicantId,
    applicant_name: lookups.userNames.get(row.applicantId) ?? null,
    company_name: row.companyName,
    status: row.status,
    status_label: statusLabel(row.status),
    items: row.itemsJson.map((line) => {
      const material = lookups.materials.get(line.base_id);
      const stockRow = lookups.rows.get(line.stock_id);
      return {
        base_id: line.base_id,
        material_name: material?.name ?? '',
        spec_model: material?.specModel ?? '',
        unit: material?.unit ?? '',
        quantity: toQuantityOrZero(line.quantity),
        stock_id: line.stock_id,
        source_table: line.source_table,
        sku: stockRow?.sku ?? null,
        warehouse_location: stockRow?.warehouseLocation ?? null,
        reserved: line.reserved,
      };
    }),
    items_json: row.itemsJson.map((line) => ({
      base_id: line.base_id,
      quantity: toQuantityOrZero(line.quantity),
      stock_id: line.stock_id,
      source_table: line.source_table,
      reserved: line.reserved,
    })),
    remark: row.remark,
    expected_return_date: row.expectedReturnDate,
    reject_reason: row.rejectReason,
    close_reason: row.closeReason,
    approver_id: row.approverId,
    approved_at: iso(row.approvedAt),
    rejected_at: iso(row.rejectedAt),
    closer_id: row.closerId,
    closed_at: iso(row.closedAt),
    dispatched_at: iso(row.dispatchedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export async function toRequestViews(q: Queryable, requests: readonly BorrowRequestRow[]): Promise<BorrowRequestView[]> {
  const lookups = await lookupsFor(q, requests);
  return requests.map((request) => toRequestView(request, lookups));
}

export async function toRequestViewOf(q: Queryable, request: BorrowRequestRow): Promise<BorrowRequestView> {
  const [view] = await toRequestViews(q, [request]);
  return view!;
}
