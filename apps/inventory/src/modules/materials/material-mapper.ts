import { toQuantity, toQuantityOrZero } from '@wms/platform';
import type { MaterialRow } from '../../db/schema/index.js';
import type { MaterialSupplyValues } from './material-supply.js';
import type { MaterialView } from './schemas.js';

/**
 * The only way a material leaves the service; fields in `hidden` are left out, not nulled. The supply
 * fields are there when the read joined them (list, detail, export).
 */
export function toMaterialView(row: MaterialRow, hidden: ReadonlySet<string>, supply?: MaterialSupplyValues): MaterialView {
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
    ...(supply && {
      stock_quantity: toQuantityOrZero(supply.physical),
      available_quantity: toQuantityOrZero(supply.available),
      in_transit_quantity: toQuantityOrZero(supply.inTransit),
      effective_supply: toQuantityOrZero(supply.supply),
      alert_level: supply.alertLevel ?? 'none',
    }),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  for (const field of hidden) delete view[field as keyof MaterialView];
  return view;
}
