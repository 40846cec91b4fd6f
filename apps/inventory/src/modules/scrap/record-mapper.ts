import { toQuantityOrZero } from '@wms/platform';
import type { TransScrapRow } from '../../db/schema/index.js';
import type { ScrapRecordView } from './schemas.js';

/** The only way a scrap record leaves the service; amounts only for holders of scrap_list:loss_amount. */
export function toScrapRecordView(row: TransScrapRow, showAmounts: boolean): ScrapRecordView {
  return {
    id: row.id,
    request_id: row.requestId,
    source_table: row.sourceTable,
    stock_id: row.stockId,
    base_id: row.baseId,
    sku: row.sku,
    material_name: row.materialName,
    spec_model: row.specModel,
    unit: row.unit,
    quantity: toQuantityOrZero(row.quantity),
    ...(showAmounts ? { cost_at_scrap: toQuantityOrZero(row.costAtScrap), total_loss: toQuantityOrZero(row.totalLoss) } : {}),
    reason: row.reason,
    reason_category: row.reasonCategory,
    track_ref: row.trackRef,
    location: row.location,
    applicant_id: row.applicantId,
    operator: row.operator,
    company_name: row.companyName,
    scrapped_at: row.scrappedAt.toISOString(),
  };
}
