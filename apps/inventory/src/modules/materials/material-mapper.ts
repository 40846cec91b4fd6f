import { toQuantity } from '@wms/platform';
import type { MaterialRow } from '../../db/schema/index.js';
import type { MaterialView } from './schemas.js';

/** The only way a material leaves the service; fields in `hidden` are left out, not nulled. */
export function toMaterialView(row: MaterialRow, hidden: ReadonlySet<string>): MaterialView {
  const view: MaterialView = {
    id: row.id,
    base_id: row.id,
    name: row.name,
    spec_model: row.specModel,
    category: row.category,
    unit: row.unit,
    company_name: row.companyName,
    purchaseLink: row.purchaseLink,
    referencePrice: toQuantity(row.referencePrice),
    productImageRemark: row.productImageRemark,
    manualLinkRemark: row.manualLinkRemark,
    remark: row.remark,
    red_threshold: toQuantity(row.redThreshold),
    yellow_threshold: toQuantity(row.yellowThreshold),
    target_threshold: toQuantity(row.targetThreshold),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  for (const field of hidden) delete view[field as keyof MaterialView];
  return view;
}
