import { Type, type Static } from 'typebox';
import { PageQuery, PositiveQuantity, timeRangeQuery } from '@wms/platform';
import { DEFECTIVE_STATUSES } from '../../db/schema/index.js';

export const DefectiveStatusSchema = Type.Union(DEFECTIVE_STATUSES.map((status) => Type.Literal(status)), {
  description: '待处理 (剩余数量 > 0), 已退回库存 (恢复入库至 0), 已报废 (报废执行至 0)',
});

/** One entry of the in-custody ledger (spec 2.7): its own item, never part of allocatable stock. */
export const LedgerEntryView = Type.Object({
  id: Type.Integer(),
  return_id: Type.Integer(),
  sku: Type.String({ description: '复制自原库存行; 同一 sku 可同时存在于库存行与台账 (两个实物)' }),
  stock_id: Type.Integer({ description: '原库存行 id (恢复入库时加回该行)' }),
  source_table: Type.String(),
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  quantity: Type.Number({ description: '登记数量' }),
  remaining_qty: Type.Number({ description: '仍在暂存的数量' }),
  status: Type.String(),
  company_name: Type.String(),
  company: Type.String({ description: '同 company_name（规格 2.7 的字段名）' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type LedgerEntryView = Static<typeof LedgerEntryView>;

export const LedgerListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '匹配 sku、物料名称、规格' })),
  status: Type.Optional(DefectiveStatusSchema),
  ...timeRangeQuery('登记时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type LedgerListQuery = Static<typeof LedgerListQuery>;

/** quantity: how much goes back to the original row; partial allowed, never above remaining_qty. */
export const RestockBody = Type.Object({ quantity: PositiveQuantity });
export type RestockBody = Static<typeof RestockBody>;
