/**
 * Audit modules (spec 2.13, 6.3). The stored module is decided by the table (the trigger's first
 * argument); this table gives every stored value its display name. The coverage test checks that every
 * audit trigger names a module listed here, so the modules built later cannot invent a name unnoticed.
 */

/** The 入库 group: one filter option that expands at query time (no data is migrated). */
export const INBOUND_GROUP = '入库';
export const INBOUND_GROUP_MEMBERS = ['入库管理', '采购入库', '成品入库', '库存管理'] as const;

/** Historical English modules keep their stored value for filtering and get a Chinese label. */
const HISTORIC_ENGLISH: Record<string, string> = {
  image_embeddings: '物料图片特征',
  purchase_request: '采购申请',
  sys_element: '系统菜单',
};

/** Modules written by the triggers today, in the order the module filter lists them. */
const CURRENT_MODULES = [
  '库存管理',
  '采购入库',
  '物料管理',
  'BOM管理',
  '出库管理',
  '借用管理',
  '退货管理',
  '不良品管理',
  '报废管理',
  '库存盘点',
  '库存预警',
  '采购管理',
  '供应商管理',
  '系统管理',
] as const;

/** Values found only in older records (before a table's module was renamed). */
const OLDER_MODULES = ['入库管理', '成品入库', '用户管理', '权限管理'] as const;

/** Stored value → display name: group members, current and older Chinese values, historic English values. */
export const MODULE_DISPLAY: Readonly<Record<string, string>> = {
  [INBOUND_GROUP]: INBOUND_GROUP,
  ...Object.fromEntries([...CURRENT_MODULES, ...OLDER_MODULES].map((module) => [module, module])),
  ...HISTORIC_ENGLISH,
};

/** Every value an audit trigger may write (checked by the audit coverage test). */
export const TRIGGER_MODULES: readonly string[] = CURRENT_MODULES;

export const moduleLabel = (module: string): string => MODULE_DISPLAY[module] ?? module;

const isGroupMember = (module: string) => (INBOUND_GROUP_MEMBERS as readonly string[]).includes(module);

/** The stored values one module filter value stands for. */
export function expandModule(value: string): string[] {
  return value === INBOUND_GROUP ? [...INBOUND_GROUP_MEMBERS] : [value];
}

const ORDER = [INBOUND_GROUP, ...CURRENT_MODULES, ...OLDER_MODULES, ...Object.keys(HISTORIC_ENGLISH)];

/**
 * The module filter's options for the modules present in the caller's records: group members fold
 * into one 入库 option; known modules in the fixed order, unknown ones after them by name.
 */
export function moduleOptions(present: readonly string[]): Array<{ value: string; label: string }> {
  const values = new Set(present.map((module) => (isGroupMember(module) ? INBOUND_GROUP : module)));
  const rank = (value: string) => {
    const index = ORDER.indexOf(value);
    return index === -1 ? ORDER.length : index;
  };
  return [...values]
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((value) => ({ value, label: moduleLabel(value) }));
}
