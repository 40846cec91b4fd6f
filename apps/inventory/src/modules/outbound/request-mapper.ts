import { toQuantityOrZero } from '@wms/platform';
import type { OutboundRequestRow } from '../../db/schema/index.js';
import { statusLabel } from './request-status.js';
import type { OutboundRequestView } from './schemas.js';

/** What the lines of a page of requests refer to, looked up once per page (request-lookups.ts). */
export interface RequestLookups {
  userNames: Map<number, string>;
  materials: Map<number, { name: string; specModel: string; unit: string }>;
  rows: Map<number, { sku: string; warehouseLocation: string }>;
}

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** The only way a request leaves the service. */
export function toRequestView(row: OutboundRequestRow, lookups: RequestLookups): OutboundRequestView {
  return {
    id: row.id,
    biz_type: row.bizType,
    applicant_id: row.applicantId,
    applicant_name: lookups.userNames.get(row.applicantId) ?? null,
    company_name: row.companyName,
    outbound_type: row.outboundType,
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
    source_return_id: row.sourceReturnId,
    reject_reason: row.rejectReason,
    close_reason: row.closeReason,
    approver_id: row.approverId,
    approved_at: iso(row.approvedAt),
    rejected_at: iso(row.rejectedAt),
    closer_id: row.closerId,
    closed_at: iso(row.closedAt),
    executed_at: iso(row.executedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
