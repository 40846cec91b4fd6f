import type { DerivedGrants } from '@wms/platform';

/** Every permission code the inventory service checks (spec §5, contract §3). */
export const PERMISSION_CATALOG = [
  'system_audit',
  'system_permission',
  'system_permission:operation',
  'system_user',
  'system_user:operation',
  'material_list',
  'material_list:operation',
  'material_list:purchaseLink',
  'material_list:referencePrice',
  'material_list:remark_edit',
  'bom_manage',
  'bom_manage:operation',
  'bom_manage:remark',
  'inbound_purchase',
  'inbound_purchase:operation',
  'inbound_purchase:pending_pool',
  'inbound_purchase:unit_price',
  'inbound_purchase:total_price',
  'inbound_purchase:tax_rate',
  'inbound_buy',
  'inbound_stock',
  'inbound_stock:operation',
  'outbound_return',
  'outbound_return_list',
  'defective_list',
  'defective_restock',
  'defective_scrap',
  'stock_change_status',
  'outbound_approval',
  'outbound_create',
  'outbound_create:operation',
  'outbound_selection',
  'op_borrow_apply',
  'op_borrow_approval',
  'op_borrow_dispatch',
  'op_return',
  'op_return:operation',
  'scrap_apply',
  'scrap_execute',
  'scrap_create',
  'scrap_create:operation',
  'scrap_list',
  'scrap_list:loss_amount',
  'inventory_stocktake',
  'inventory_stocktake:operation',
  'crossDomain',
] as const;

export type PermissionCode = (typeof PERMISSION_CATALOG)[number];

/** Grants that imply codes outside the bridge: scrap_create:operation is the source of both scrap codes. */
export const DERIVED_GRANTS: DerivedGrants = {
  'scrap_create:operation': ['scrap_apply', 'scrap_execute'],
};

export const ROLES = ['SUPER_ADMIN', 'SUPERVISOR', 'WAREHOUSE_MGR', 'INBOUND', 'OUTBOUND', 'SALES'] as const;
export type Role = (typeof ROLES)[number];

/**
 * A grantable code: a catalog code, the wildcard of a catalog module (`material_list:*`), or the
 * `:operation` form of a catalog module (`system_audit:operation`), which the bridge makes equal to the
 * module code (contract §3). Any other suffix would be a field code nothing checks: refused as a typo.
 */
export function isGrantableCode(code: string): boolean {
  if ((PERMISSION_CATALOG as readonly string[]).includes(code)) return true;
  const module = bridgedModuleOf(code);
  return module !== undefined && PERMISSION_CATALOG.some((known) => known === module || known.startsWith(`${module}:`));
}

function bridgedModuleOf(code: string): string | undefined {
  const colon = code.indexOf(':');
  const suffix = code.slice(colon + 1);
  return colon > 0 && (suffix === '*' || suffix === 'operation') ? code.slice(0, colon) : undefined;
}

const supervisorExcluded = (code: string) =>
  code === 'crossDomain' || code.startsWith('system_user') || code.startsWith('system_permission');

/**
 * Default grants per role (contract §3), written into role_permissions on first start.
 * SUPER_ADMIN holds every code and, as spec 5.2 names it, the material_list:* wildcard.
 */
export const DEFAULT_ROLE_GRANTS: Record<Role, readonly string[]> = {
  SUPER_ADMIN: [...PERMISSION_CATALOG, 'material_list:*'],
  SUPERVISOR: PERMISSION_CATALOG.filter((code) => !supervisorExcluded(code)),
  WAREHOUSE_MGR: [
    'material_list:*', 'bom_manage:*', 'inbound_buy', 'inbound_stock:operation', 'inbound_purchase:*',
    'outbound_approval', 'outbound_create:operation', 'outbound_selection', 'outbound_return', 'defective_list',
    'defective_restock', 'defective_scrap', 'stock_change_status', 'op_borrow_apply', 'op_borrow_approval',
    'op_borrow_dispatch', 'op_return:operation', 'scrap_create:operation', 'scrap_list', 'scrap_list:loss_amount',
    'inventory_stocktake:operation', 'system_audit',
  ],
  INBOUND: [
    'material_list:operation', 'inbound_buy', 'inbound_stock:operation', 'inventory_stocktake:operation',
    'op_borrow_apply', 'op_return:operation', 'scrap_apply',
  ],
  OUTBOUND: [
    'outbound_selection', 'outbound_create:operation', 'outbound_return', 'op_borrow_apply', 'op_borrow_dispatch',
    'op_return:operation', 'inventory_stocktake:operation', 'scrap_apply',
  ],
  SALES: ['outbound_selection', 'op_borrow_apply', 'op_return:operation'],
};

/** Codes an operator editing their own role always keeps (spec §5). */
export const SELF_EDIT_KEPT = ['system_permission', 'system_permission:operation'] as const;
