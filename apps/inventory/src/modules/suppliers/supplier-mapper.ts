import type { SupplierRow } from '../../db/schema/index.js';
import type { SupplierView } from './schemas.js';

/** The only way a supplier leaves the service. */
export function toSupplierView(row: SupplierRow): SupplierView {
  return {
    id: row.id,
    name: row.name,
    contact: row.contact,
    lead_time_days: row.leadTimeDays,
    remark: row.remark,
    company_name: row.companyName,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
