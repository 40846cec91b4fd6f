import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';
import { OUTBOUND_TYPES } from '../../db/schema/index.js';
import { Id, Nullable, ReasonBody, requestViewSchema, submitBodySchema } from '../request-workflow/schemas.js';
import { RowSnapshotFields, ScannedLines } from '../scan-execution/schemas.js';
import { StockRowView } from '../stock/schemas.js';
import { RequestKeywordQuery } from '../request-workflow/request-keyword.js';

export const OutboundTypeSchema = Type.Union(OUTBOUND_TYPES.map((type) => Type.Literal(type)), {
  description: 'SALES 销售, USE 领用, PRODUCTION 生产',
});

// ---- requests -------------------------------------------------------------------------------

export const SubmitRequestBody = submitBodySchema({ kind: { outbound_type: OutboundTypeSchema }, details: {} });
export type SubmitRequestBody = Static<typeof SubmitRequestBody>;

export const RejectBody = ReasonBody;
export type RejectBody = ReasonBody;

export const RequestListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: '0 待审批, 1 已审批, 2 已驳回, 3 已出库, 4 已完结' })),
  outbound_type: Type.Optional(OutboundTypeSchema),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
  ...RequestKeywordQuery,
  ...timeRangeQuery('提交时间'),
});
export type RequestListQuery = Static<typeof RequestListQuery>;

export const OutboundRequestView = requestViewSchema({
  kind: { outbound_type: Type.String() },
  details: { source_return_id: Nullable(Type.Integer()) },
  milestone: { executed_at: Nullable(Type.String()) },
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
  lines: ScannedLines,
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
  ...RowSnapshotFields,
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
  ...timeRangeQuery('出库时间'),
});
export type OutboundListQuery = Static<typeof OutboundListQuery>;
