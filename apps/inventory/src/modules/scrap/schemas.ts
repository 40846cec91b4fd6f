import { Type, type Static } from 'typebox';
import { PageQuery, PositiveQuantity, timeRangeQuery } from '@wms/platform';
import { REASON_CATEGORIES, SCRAP_MODES, SCRAP_SOURCES } from '../../db/schema/index.js';
import { LedgerEntryView } from '../defective/schemas.js';
import { Id, Nullable, ReasonBody, requestViewSchema } from '../request-workflow/schemas.js';
import { ReturnView } from '../returns/schemas.js';
import { ScannedLines } from '../scan-execution/schemas.js';

/** One of the values; typed as their union (a Union built from an array would be typed never). */
const literals = <T extends string>(values: readonly T[], description: string) =>
  Type.Unsafe<T>(Type.Union(values.map((value) => Type.Literal(value)), { description }));

export const ScrapModeSchema = literals(SCRAP_MODES, 'scan 扫码执行（库存行） | auto 按审批数量自动执行（借用、不良品台账）');
export const ScrapSourceSchema = literals(SCRAP_SOURCES, '库存行 stock_buy/stock_semi/stock_product，借用明细 trans_borrow，不良品台账 trans_defective_goods');
export const ReasonCategorySchema = literals(REASON_CATEGORIES, '报废原因类别');

/** Required: a reason of blanks only would be stored empty (it is trimmed), so it is refused like a missing one. */
const Reason = Type.String({ minLength: 1, maxLength: 500, pattern: '\\S', description: '报废原因（不能为空白）' });
const Remark = Type.Optional(Nullable(Type.String({ maxLength: 1000 })));
const ApproverIds = Type.Optional(
  Type.Array(Id, {
    maxItems: 200,
    description: '可审批人（用户 id）；不传则为提交时本公司持有 scrap_execute 的在职用户；空数组表示无人可审批',
  }),
);

// ---- submissions ----------------------------------------------------------------------------

export const SubmitScrapBody = Type.Object({
  mode: Type.Optional(ScrapModeSchema),
  reason: Reason,
  reason_category: Type.Optional(ReasonCategorySchema),
  items: Type.Array(
    Type.Object({
      source_table: ScrapSourceSchema,
      stock_id: Id,
      scrap_qty: PositiveQuantity,
      location: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    }),
    { minItems: 1, maxItems: 500, description: '同一库存行的多行会合并' },
  ),
  approver_ids: ApproverIds,
  remark: Remark,
  company_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '跨公司账号必填（否则 400 COMPANY_REQUIRED），库存行须属于该公司；其余账号按本公司' })),
});
export type SubmitScrapBody = Static<typeof SubmitScrapBody>;

export const BorrowScrapBody = Type.Object({
  borrow_ids: Type.Array(Id, { minItems: 1, maxItems: 200, description: '借用明细 id（须为借用中）' }),
  reason: Reason,
  approver_ids: ApproverIds,
  remark: Remark,
});
export type BorrowScrapBody = Static<typeof BorrowScrapBody>;

export const LedgerScrapBody = Type.Object({
  quantity: PositiveQuantity,
  reason: Reason,
  approver_ids: ApproverIds,
  remark: Remark,
});
export type LedgerScrapBody = Static<typeof LedgerScrapBody>;

export const ProductionScrapBody = Type.Object({
  track_ref: Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', description: '生产系统的追踪号，必填且唯一' }),
  outbound_id: Type.Integer({ minimum: 1, maximum: 2147483647, description: '原出库记录 (trans_outbound 明细行) id' }),
  quantity: PositiveQuantity,
  /** Only track_ref is named required (spec 4.4); the production system may leave the reason to its category. */
  reason: Type.Optional({ ...Reason, description: '报废原因；不填为 生产报废（填写时不能为空白）' }),
});
export type ProductionScrapBody = Static<typeof ProductionScrapBody>;

// ---- decisions and execution ----------------------------------------------------------------

export const RejectBody = ReasonBody;
export type RejectBody = ReasonBody;

export const ExecuteScrapBody = Type.Object({
  scans: Type.Optional(ScannedLines),
});
export type ExecuteScrapBody = Static<typeof ExecuteScrapBody>;

// ---- views ----------------------------------------------------------------------------------

export const ScrapRequestView = requestViewSchema({
  kind: { mode: Type.String(), reason_category: Type.String() },
  details: {
    reason: Type.String(),
    allowed_approvers: Type.Array(Type.Integer(), { description: '可审批人；空表示无人可审批' }),
    track_ref: Nullable(Type.String()),
  },
  milestone: { executor_id: Nullable(Type.Integer()), executed_at: Nullable(Type.String()) },
  line: { scrap_qty: Type.Number(), location: Type.String() },
});
export type ScrapRequestView = Static<typeof ScrapRequestView>;

export const ScrapRequestListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: '0 待审批, 1 已审批, 2 已驳回, 3 已执行, 4 已撤回' })),
  mode: Type.Optional(ScrapModeSchema),
  reason_category: Type.Optional(ReasonCategorySchema),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '匹配单号（请求 ID）、备注、原因、追踪号、申请人姓名或账号、物料名称或规格' })),
  ...timeRangeQuery('提交时间'),
});
export type ScrapRequestListQuery = Static<typeof ScrapRequestListQuery>;

export const ProductionScrapResult = Type.Object({
  return: ReturnView,
  ledger_entry: LedgerEntryView,
  scrap_request: ScrapRequestView,
});
export type ProductionScrapResult = Static<typeof ProductionScrapResult>;

// ---- scan -----------------------------------------------------------------------------------

export const ScrapScanQuery = Type.Object({
  barcode: Type.String({ minLength: 1, maxLength: 128 }),
  request_id: Type.Optional(Id),
});
export type ScrapScanQuery = Static<typeof ScrapScanQuery>;

export const ScrapScanView = Type.Object({
  source_table: Type.String(),
  stock_id: Type.Integer({ description: '库存行 id，或不良品台账自身的 id' }),
  sku: Type.String(),
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  company_name: Type.String(),
  status: Type.String(),
  warehouse_location: Nullable(Type.String()),
  stock_quantity: Nullable(Type.Number({ description: '库存行的库存数量（台账为 null）' })),
  available_quantity: Type.Number({ description: '可报废数量：库存行为实时可用 + 本申请在该行的预留；台账为剩余数量' }),
  live_available_quantity: Nullable(Type.Number({ description: '库存行当前的可用数量（台账为 null）' })),
  remaining_qty: Nullable(Type.Number({ description: '台账剩余数量（库存行为 null）' })),
  in_request: Type.Boolean({ description: '是否为该报废申请中的一行' }),
  request_scrap_qty: Nullable(Type.Number({ description: '该报废申请对这一行的报废数量' })),
});
export type ScrapScanView = Static<typeof ScrapScanView>;

// ---- records --------------------------------------------------------------------------------

export const ScrapRecordsQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '匹配条码、物料名称、规格、原因、经办人、追踪号' })),
  reason_category: Type.Optional(literals(REASON_CATEGORIES, '报废原因类别；库存报废 同时匹配没有类别的旧记录')),
  source_table: Type.Optional(ScrapSourceSchema),
  ...timeRangeQuery('报废时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type ScrapRecordsQuery = Static<typeof ScrapRecordsQuery>;

export const ScrapRecordView = Type.Object({
  id: Type.Integer(),
  request_id: Nullable(Type.Integer()),
  source_table: Type.String(),
  stock_id: Type.Integer(),
  base_id: Type.Integer(),
  sku: Type.String(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  quantity: Type.Number(),
  cost_at_scrap: Type.Optional(Type.Number({ description: '需 scrap_list:loss_amount' })),
  total_loss: Type.Optional(Type.Number({ description: '需 scrap_list:loss_amount' })),
  reason: Type.String(),
  reason_category: Nullable(Type.String({ description: '旧记录没有类别（按 库存报废 处理）' })),
  track_ref: Nullable(Type.String()),
  location: Type.String(),
  applicant_id: Nullable(Type.Integer()),
  operator: Type.String(),
  company_name: Type.String(),
  scrapped_at: Type.String(),
});
export type ScrapRecordView = Static<typeof ScrapRecordView>;
