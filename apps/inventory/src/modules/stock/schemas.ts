import { Type, type Static, type TSchema } from 'typebox';
import { DateString, dayRangeQuery, PageQuery, PositiveQuantity } from '@wms/platform';
import { STOCK_KINDS, STOCK_STATUSES, type StockKind } from '../../db/schema/index.js';

/** What each stock kind is called wherever it is shown (labels, audit, exports). */
export const STOCK_KIND_LABELS: Readonly<Record<StockKind, string>> = { stock_buy: '外购件', stock_semi: '半成品', stock_product: '成品' };

export const StockKindSchema = Type.Union(STOCK_KINDS.map((kind) => Type.Literal(kind)), {
  description: STOCK_KINDS.map((kind) => `${kind} ${STOCK_KIND_LABELS[kind]}`).join(', '),
});
export const StockStatusSchema = Type.Union(STOCK_STATUSES.map((status) => Type.Literal(status)), {
  description: '在库, 冻结, 不良品',
});

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Code = Type.String({ maxLength: 64 });
const Location = Type.String({ maxLength: 255, description: '斜杠分隔的库位路径, 如 A/01/03' });
const Remark = Type.String({ maxLength: 1000 });
/** numeric(12,2) */
const UnitCost = Type.Number({ minimum: 0, maximum: 9999999999.99 });
const CompanyName = Type.String({ minLength: 1, maxLength: 64, description: '跨公司账号必填（否则 400 COMPANY_REQUIRED），物料须属于该公司；其余账号按本公司' });

export const StockRowView = Type.Object({
  id: Type.Integer(),
  source_table: Type.String(),
  sku: Type.String(),
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  category: Type.String(),
  unit: Type.String(),
  company_name: Type.String(),
  stock_quantity: Type.Number(),
  available_quantity: Type.Number(),
  in_quantity: Type.Number(),
  status: Type.String(),
  warehouse_location: Type.String(),
  batch_number: Type.Union([Type.String(), Type.Null()], { description: '成品行恒为空字符串' }),
  serial_number: Type.Union([Type.String(), Type.Null()]),
  in_date: Type.Union([Type.String(), Type.Null()]),
  production_date: Type.Union([Type.String(), Type.Null()]),
  request_id: Type.Union([Type.Integer(), Type.Null()]),
  bom_version_id: Type.Union([Type.Integer(), Type.Null()], { description: '成品: 生产所依据的 BOM 版本 ID' }),
  unit_cost: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '需 inbound_purchase:unit_price, 否则不返回' })),
  referencePrice: Type.Optional(
    Type.Union([Type.Number(), Type.Null()], { description: '物料参考价; 需 material_list:referencePrice, 否则不返回' }),
  ),
  remark: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type StockRowView = Static<typeof StockRowView>;

export const StockInBody = Type.Object({
  source_table: StockKindSchema,
  base_id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  in_quantity: PositiveQuantity,
  warehouse_location: Type.Optional(Location),
  sku: Type.Optional(Type.String({ maxLength: 64, description: '条码; 不传则自动生成 (类别前缀+日期+随机码)' })),
  batch_number: Type.Optional(Nullable(Code)),
  serial_number: Type.Optional(Nullable(Code)),
  in_date: Type.Optional(Nullable(DateString)),
  production_date: Type.Optional(Nullable(DateString)),
  request_id: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2147483647 }))),
  unit_cost: Type.Optional(Nullable(UnitCost)),
  remark: Type.Optional(Nullable(Remark)),
  bom_version_id: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2147483647, description: '仅成品: 生产所依据的已发布 BOM 版本 ID（须为本物料、本公司的版本）' }))),
  company_name: Type.Optional(CompanyName),
});
export type StockInBody = Static<typeof StockInBody>;

export const UpdateStockBody = Type.Object({
  source_table: Type.Optional(StockKindSchema),
  stock_quantity: Type.Optional(PositiveQuantity),
  warehouse_location: Type.Optional(Location),
  batch_number: Type.Optional(Nullable(Code)),
  serial_number: Type.Optional(Nullable(Code)),
  in_date: Type.Optional(Nullable(DateString)),
  production_date: Type.Optional(Nullable(DateString)),
  unit_cost: Type.Optional(Nullable(UnitCost)),
  remark: Type.Optional(Nullable(Remark)),
  bom_version_id: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 2147483647, description: '仅成品: 生产所依据的已发布 BOM 版本 ID（须为本物料、本公司的版本）' }))),
});
export type UpdateStockBody = Static<typeof UpdateStockBody>;

export const ChangeStatusBody = Type.Object({
  status: StockStatusSchema,
  source_table: Type.Optional(StockKindSchema),
});
export type ChangeStatusBody = Static<typeof ChangeStatusBody>;

export const StockRowQuery = Type.Object({ source_table: Type.Optional(StockKindSchema) });
export type StockRowQuery = Static<typeof StockRowQuery>;

/** The filters of the stock list, shared by its export. */
const StockFilterFields = {
  keyword: Type.Optional(Type.String({ maxLength: 128, description: 'sku、批次、序列号、物料名称、规格、库位' })),
  source_table: Type.Optional(StockKindSchema),
  status: Type.Optional(StockStatusSchema),
  base_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  warehouse_location: Type.Optional(Type.String({ maxLength: 255, description: '库位前缀' })),
  ...dayRangeQuery('入库日期 in_date'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
};

export const StockListQuery = Type.Object({ ...PageQuery, ...StockFilterFields });
export type StockListQuery = Static<typeof StockListQuery>;

export const StockExportQuery = Type.Object(StockFilterFields);
export type StockFilter = Static<typeof StockExportQuery>;

export const ScanQuery = Type.Object({ barcode: Type.String({ minLength: 1, maxLength: 128 }) });
export type ScanQuery = Static<typeof ScanQuery>;

export const ReconcileQuery = Type.Object({
  company: Type.Optional(Type.String({ maxLength: 64, description: '只核对该公司的库存行（跨公司账号）' })),
});
export type ReconcileQuery = Static<typeof ReconcileQuery>;

export const LedgerReconcileView = Type.Object({
  checked_at: Type.String(),
  ok: Type.Boolean({ description: '没有不平的库存行，也没有仍占用预留的已结束申请' }),
  mismatches: Type.Array(
    Type.Object({
      id: Type.Integer(),
      sku: Type.String(),
      source_table: Type.String(),
      base_id: Type.Integer(),
      company_name: Type.String(),
      status: Type.String(),
      stock_quantity: Type.Number(),
      available_quantity: Type.Number(),
      held_quantity: Type.Number({ description: '未结申请（状态 0、1）的预留 + 借出未还' }),
      expected_available_quantity: Type.Number({ description: 'stock_quantity − held_quantity' }),
    }),
    { description: '可用数量 ≠ 库存 − 预留 − 借出的库存行' },
  ),
  stale_reservations: Type.Array(Type.Object({ biz_type: Type.String(), id: Type.Integer() }), {
    description: '已不在状态 0、1 却仍标记预留的申请（仅在全部公司范围内核对）',
  }),
});
export type LedgerReconcileReport = Static<typeof LedgerReconcileView>;
