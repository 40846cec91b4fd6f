import { toQuantityOrZero } from '@wms/platform';
import type { TransOutboundRow } from '../../db/schema/index.js';
import { rowSnapshotView } from '../scan-execution/row-snapshot.js';
import type { OutboundLineView } from './schemas.js';

/** The only way an executed outbound line leaves the service. */
export function toOutboundLineView(row: TransOutboundRow): OutboundLineView {
  return {
    id: row.id,
    outbound_no: row.outboundNo,
    request_id: row.requestId,
    applicant_id: row.applicantId,
    consumer_name: row.consumerName,
    outbound_type: row.outboundType,
    outbound_time: row.outboundTime.toISOString(),
    ...rowSnapshotView(row),
    // Spec 2.2: a finished product has no batch; its batch number reads as an empty string.
    batch_number: row.sourceTable === 'stock_product' ? '' : row.batchNumber,
    serial_number: row.serialNumber,
    quantity: toQuantityOrZero(row.quantity),
    warehouse_location: row.warehouseLocation,
    operator: row.operator,
    company_name: row.companyName,
  };
}
