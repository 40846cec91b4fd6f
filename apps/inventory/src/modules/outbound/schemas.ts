import { Type, type Static, type TSchema } from 'typebox';
import { PageQuery, PositiveQuantity } from '@wms/platform';
import { OUTBOUND_TYPES } from '../../db/schema/index.js';
import { StockRowView } from '../stock/schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const CompanyName = Type.String({ minLength: 1, maxLength: 64 });

export const OutboundTypeSchema = Type.Union(OUTBOUND_TYPES.map((type) => Type.Literal(type)), {
  description: 'SALES 销售, USE 领用, PRODUCTION 生产',
});

// ---- requests -------------------------------------------------------------------------------

export const SubmitRequestBody = Type.Object({
  outbound_type: OutboundTypeSchema,
  items: Type.Array(Type.Object({ base_id: Id, quantity: PositiveQuantity }), {
    minItems: 1,
    maxItems: 500,
    description: '同一物料的多行会合并后分配',
  }),
  remark: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  company_name: Type.Optional(Type.String({ ...CompanyName, description: '仅跨公司账号需要且必须填写' })),
});
export type SubmitRequestBody = Static<typeof SubmitRequestBody>;

export const RejectBody = Type.Object({ reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))) });
export type RejectBody = Static<typeof RejectBody>;

export const RequestListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: '0 待审批, 1 已审批, 2 已驳回, 3 已出库, 4 已完结' })),
  outbound_type: Type.Optional(OutboundTypeSchema),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type RequestListQuery = Static<typeof RequestListQuery>;

/** A stored line as spec 2.4 names it (items_json). */
export const ReservationLineView = Type.Object({
  base_id: Type.Integer(),
  quantity: Type.Number(),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  reserved: Type.Boolean(),
});

/** A stored line with what a person needs to read it. sku and location are null when the row is gone. */
export const RequestLineView = Type.Object({
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  quantity: Type.Number(),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  sku: Nullable(Type.String()),
  warehouse_location: Nullable(Type.String()),
  reserved: Type.Boolean(),
});

export const OutboundRequestView = Type.Object({
  id: Type.Integer(),
  biz_type: Type.String(),
  applicant_id: Type.Integer(),
  applicant_name: Nullable(Type.String()),
  company_name: Type.String(),
  outbound_type: Type.String(),
  status: Type.Integer(),
  status_label: Type.String(),
  items: Type.Array(RequestLineView),
  items_json: Type.Array(ReservationLineView),
  remark: Nullable(Type.String()),
  source_return_id: Nullable(Type.Integer()),
  reject_reason: Nullable(Type.String()),
  close_reason: Nullable(Type.String({ description: 'closed 关闭 | withdrawn 撤回' })),
  approver_id: Nullable(Type.Integer()),
  approved_at: Nullable(Type.String()),
  rejected_at: Nullable(Type.String()),
  closer_id: Nullable(Type.Integer()),
  closed_at: Nullable(Type.String()),
  executed_at: Nullable(Type.String()),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type OutboundRequestView = Static<typeof OutboundRequestView>;

// ---- scanning and stock selection -----------------------------------------------------------

export const ScanQuery = Type.Object({
  barcode: Type.String({ minLength: 1, maxLength: 128 }),
  request_id: Type.Optional(Id),
});
export type ScanQuery = Static<typeof ScanQuery>;

export const AlternativesQuery = Type.Object({ base_id: Id, request_id: Type.Optional(Id) });
export type AlternativesQuery = Static<typeof AlternativesQuery>;

/** A stock row as an outbound scan sees it: available_quantity includes this request's own reservation. */
export const ScannedRowView = Type.Intersect([
  StockRowView,
  Type.Object({
    live_available_quantity: Type.Number({ description: '库存行当前的可用数量' }),
    reserved_by_request: Type.Number({ description: '本申请在该行上的预留数量 (已加回)' }),
    reservation_applied: Type.Boolean({ description: '是否加回了本申请的预留' }),
  }),
]);
export type ScannedRowView = Static<typeof ScannedRowView>;

export const BomMatchBody = Type.Object({
  child_ids: Type.Array(Id, { maxItems: 2000, description: '物料 id 列表' }),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type BomMatchBody = Static<typeof BomMatchBody>;

// ---- execution and the outbound listing -----------------------------------------------------

export const ExecuteBody = Type.Object({
  request_id: Id,
  consumer_name: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
  lines: Type.Array(
    Type.Object({ barcode: Type.String({ minLength: 1, maxLength: 128 }), quantity: PositiveQuantity }),
    { minItems: 1, maxItems: 500 },
  ),
});
export type ExecuteBody = Static<typeof ExecuteBody>;

export const OutboundLineView = Type.Object({
  id: Type.Integer(),
  outbound_no: Type.String(),
  request_id: Type.Integer(),
  applicant_id: Nullable(Type.Integer()),
  consumer_name: Type.String(),
  outbound_type: Type.String(),
  outbound_time: Type.String(),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  base_id: Type.Integer(),
  sku: Type.String(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  batch_number: Nullable(Type.String()),
  serial_number: Nullable(Type.String()),
  quantity: Type.Number(),
  warehouse_location: Type.String(),
  operator: Type.String(),
  company_name: Type.String(),
});
export type OutboundLineView = Static<typeof OutboundLineView>;

export const ExecutionResult = Type.Object({
  outbound_no: Type.String(),
  request_id: Type.Integer(),
  outbound_time: Type.String(),
  lines: Type.Array(OutboundLineView),
});
export type ExecutionResult = Static<typeof ExecutionResult>;

export const OutboundGroupView = Type.Object({
  outbound_no: Type.String(),
  outbound_time: Type.String(),
  outbound_type: Type.String(),
  request_id: Type.Integer(),
  applicant_id: Nullable(Type.Integer()),
  consumer_name: Type.String(),
  operator: Type.String(),
  company_name: Type.String(),
  total_quantity: Type.Number(),
  items: Type.Array(OutboundLineView),
});
export type OutboundGroupView = Static<typeof OutboundGroupView>;

export const SEARCH_TYPES = ['all', 'outbound_no', 'material', 'sku', 'consumer', 'operator'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];

export const OutboundListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 128 })),
  search_type: Type.Optional(
    Type.Union(SEARCH_TYPES.map((type) => Type.Literal(type)), {
      description: 'all (默认) | outbound_no 出库单号 | material 物料名称/规格 | sku 条码 | consumer 领用人 | operator 操作人',
    }),
  ),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
  advancedFilters: Type.Optional(
    Type.String({
      maxLength: 2000,
      description: 'JSON 对象: outbound_type, applicant_id, request_id, base_id, source_table, warehouse_location (库位前缀)',
    }),
  ),
  start_date: Type.Optional(Type.String({ maxLength: 40, description: 'YYYY-MM-DD (北京时间当日 00:00:00 起) 或日期时间' })),
  end_date: Type.Optional(Type.String({ maxLength: 40, description: 'YYYY-MM-DD (含北京时间当日整天) 或日期时间' })),
});
export type OutboundListQuery = Static<typeof OutboundListQuery>;
