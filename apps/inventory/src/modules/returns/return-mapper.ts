import { toQuantityOrZero } from '@wms/platform';
import type { ReturnType, TransReturnRow } from '../../db/schema/index.js';
import type { ReturnView } from './schemas.js';

export const RETURN_TYPE_LABELS: Record<ReturnType, string> = { good: '良品', defective: '不良品' };

/** The only way a return record leaves the service. */
export function toReturnView(row: TransReturnRow): ReturnView {
  const time = row.createdAt.toISOString();
  return {
    id: row.id,
    outbound_id: row.outboundId,
    outbound_no: row.outboundNo,
    return_type: row.returnType,
    return_type_label: RETURN_TYPE_LABELS[row.returnType] ?? row.returnType,
    quantity: toQuantityOrZero(row.quantity),
    reason: row.reason,
    operator: row.operator,
    operator_id: row.operatorId,
    company_name: row.companyName,
    company: row.companyName,
    stock_id: row.stockId,
    source_table: row.sourceTable,
    base_id: row.baseId,
    sku: row.sku,
    material_name: row.materialName,
    spec_model: row.specModel,
    created_at: time,
    time,
  };
}
