import { can, type Actor } from '@wms/platform';

/**
 * Columns whose values a field permission guards (contract §3: field codes need their own grant, so that field
 * permissions stay meaningful), by audited table: the same codes that hide them in the modules' own answers
 * (materials' field rules, stock and purchase prices, scrap amounts). An audit reader without the code sees
 * neither the value in a snapshot nor its change; SUPER_ADMIN holds every code.
 */
const GUARDED_COLUMNS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  materials: {
    purchase_link: 'material_list:purchaseLink',
    reference_price: 'material_list:referencePrice',
    product_image_remark: 'material_list:remark_edit',
    manual_link_remark: 'material_list:remark_edit',
  },
  stock_rows: { unit_cost: 'inbound_purchase:unit_price' },
  purchase_requests: {
    unit_price: 'inbound_purchase:unit_price',
    total_price: 'inbound_purchase:total_price',
    tax_rate: 'inbound_purchase:tax_rate',
  },
  trans_scrap: { cost_at_scrap: 'scrap_list:loss_amount', total_loss: 'scrap_list:loss_amount' },
};

/** The columns a caller may not read, by table (tables with none are absent). */
export type HiddenColumns = ReadonlyMap<string, ReadonlySet<string>>;

export function hiddenColumnsOf(actor: Actor): HiddenColumns {
  const hidden = new Map<string, Set<string>>();
  for (const [table, columns] of Object.entries(GUARDED_COLUMNS)) {
    const unreadable = Object.entries(columns).filter(([, code]) => !can(actor, code)).map(([column]) => column);
    if (unreadable.length > 0) hidden.set(table, new Set(unreadable));
  }
  return hidden;
}
