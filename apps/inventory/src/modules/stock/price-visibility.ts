import { can, type Actor } from '@wms/platform';

/**
 * Price and cost fields of a stock row answer (spec 4.2 "removed unless permitted"). A field the caller
 * may not read is absent from the answer, not null. SUPER_ADMIN holds every code and so sees both.
 *   unit_cost       the row's stock-in cost     needs inbound_purchase:unit_price
 *   referencePrice  the material's price        needs material_list:referencePrice
 */
export const UNIT_COST_PERMISSION = 'inbound_purchase:unit_price';
export const REFERENCE_PRICE_PERMISSION = 'material_list:referencePrice';

export interface PriceVisibility {
  unitCost: boolean;
  referencePrice: boolean;
}

export function priceVisibilityOf(actor: Actor): PriceVisibility {
  return { unitCost: can(actor, UNIT_COST_PERMISSION), referencePrice: can(actor, REFERENCE_PRICE_PERMISSION) };
}
