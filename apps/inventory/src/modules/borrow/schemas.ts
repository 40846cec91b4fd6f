import { Type, type Static } from 'typebox';
import { DateString, PageQuery, PositiveQuantity, timeRangeQuery } from '@wms/platform';
import { RequestKeywordQuery } from '../request-workflow/request-keyword.js';
import { Id, Nullable, requestViewSchema, submitBodySchema } from '../request-workflow/schemas.js';
import { RowSnapshotFields, ScannedLines } from '../scan-execution/schemas.js';

const Remark = Type.String({ maxLength: 1000 });
const Location = Type.String({ maxLength: 255, description: '斜杠分隔的库位路径或存放位置' });
const CompanyQuery = Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' }));

// ---- requests -------------------------------------------------------------------------------

export const SubmitBorrowBody = submitBodySchema({
  kind: {},
  details: { expected_return_date: Type.Optional(Nullable(DateString)) },
});
export type SubmitBorrowBody = Static<typeof SubmitBorrowBody>;

export { ReasonBody } from '../request-workflow/schemas.js';

export const BorrowRequestListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 4, description: '0 待审批, 1 已审批, 2 已驳回, 3 已借出, 4 已完结' })),
  company: CompanyQuery,
  ...RequestKeywordQuery,
  ...timeRangeQuery('提交时间'),
});
export type BorrowRequestListQuery = Static<typeof BorrowRequestListQuery>;

export const BorrowRequestView = requestViewSchema({
  kind: {},
  details: { expected_return_date: Nullable(Type.String()) },
  milestone: { dispatched_at: Nullable(Type.String()) },
});
export type BorrowRequestView = Static<typeof BorrowRequestView>;

// ---- transfers ------------------------------------------------------------------------------

export const TransferView = Type.Object({
  id: Type.Integer(),
  borrow_id: Type.Integer(),
  borrow_no: Type.String(),
  material_name: Type.String(),
  sku: Type.String(),
  from_user_id: Type.Integer(),
  from_user_name: Nullable(Type.String()),
  to_user_id: Type.Integer(),
  to_user_name: Nullable(Type.String()),
  quantity: Type.Number(),
  status: Type.String({ description: 'PENDING | ACCEPTED | REJECTED' }),
  reason: Nullable(Type.String()),
  reject_seen_at: Nullable(Type.String()),
  company_name: Type.String(),
  created_at: Type.String(),
  decided_at: Nullable(Type.String()),
});
export type TransferView = Static<typeof TransferView>;

export const TransferBody = Type.Object({
  to_user_id: Id,
  quantity: Type.Optional(
    Type.Number({ ...PositiveQuantity, description: '可省略; 填写时必须等于该行全部未归还数量, 否则 400 SPLIT_REQUIRED (请先拆分)' }),
  ),
});
export type TransferBody = Static<typeof TransferBody>;

export const RejectAckBody = Type.Object({ transfer_ids: Type.Array(Id, { minItems: 1, maxItems: 500 }) });
export type RejectAckBody = Static<typeof RejectAckBody>;

export const RejectAckResult = Type.Object({ acknowledged: Type.Integer(), items: Type.Array(TransferView) });
export type RejectAckResult = Static<typeof RejectAckResult>;

export const PendingCountView = Type.Object({
  count: Type.Integer({ description: '等待我接收的转移数' }),
  rejects: Type.Array(
    Type.Object({
      id: Type.Integer(),
      borrow_id: Type.Integer(),
      borrow_no: Type.String(),
      material_name: Type.String(),
      to_user_id: Type.Integer(),
      receiver_name: Nullable(Type.String()),
      quantity: Type.Number(),
      reason: Nullable(Type.String()),
      decided_at: Nullable(Type.String()),
    }),
    { description: '我发起、被拒绝且尚未确认的转移' },
  ),
});
export type PendingCountView = Static<typeof PendingCountView>;

// ---- borrow lines ---------------------------------------------------------------------------

export const BorrowLineView = Type.Object({
  id: Type.Integer(),
  borrow_no: Type.String(),
  request_id: Type.Integer(),
  ...RowSnapshotFields,
  quantity: Type.Number(),
  returned_quantity: Type.Number(),
  pending_quantity: Type.Number({ description: '未归还数量 = quantity − returned_quantity' }),
  borrower_id: Type.Integer(),
  borrower_name: Type.String(),
  current_holder_id: Nullable(Type.Integer()),
  current_holder_name: Nullable(Type.String()),
  dispatch_operator: Type.String(),
  location: Type.String(),
  status: Type.String({ description: 'borrowed | returned | scrapped' }),
  company_name: Type.String(),
  borrowed_at: Type.String(),
  returned_at: Nullable(Type.String()),
  split_from_id: Nullable(Type.Integer()),
  is_mine: Type.Boolean({ description: '当前用户是持有人' }),
  can_transfer: Type.Boolean({ description: '当前用户是持有人、该行借用中且没有待处理的转移' }),
  pending_transfer: Nullable(TransferView),
});
export type BorrowLineView = Static<typeof BorrowLineView>;

export const DispatchBody = Type.Object({
  request_id: Id,
  borrower_id: Id,
  lines: ScannedLines,
  location: Type.Optional(Nullable(Location)),
});
export type DispatchBody = Static<typeof DispatchBody>;

export const DispatchResult = Type.Object({
  borrow_no: Type.String(),
  request_id: Type.Integer(),
  borrowed_at: Type.String(),
  lines: Type.Array(BorrowLineView),
});
export type DispatchResult = Static<typeof DispatchResult>;

export const ReturnBody = Type.Object({
  quantity: PositiveQuantity,
  location: Type.Optional(Nullable(Location)),
  remark: Type.Optional(Nullable(Remark)),
});
export type ReturnBody = Static<typeof ReturnBody>;

export const SplitBody = Type.Object({
  quantity: Type.Number({ ...PositiveQuantity, description: '拆出到新行的数量; 须小于该行未归还数量' }),
});
export type SplitBody = Static<typeof SplitBody>;

/** contract §4: "the two lines", the original first. */
export const SplitResult = Type.Array(BorrowLineView, { minItems: 2, maxItems: 2, description: '[原行, 新行]' });
export type SplitResult = Static<typeof SplitResult>;

// ---- records and history --------------------------------------------------------------------

export const BorrowRecordsQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(
    Type.Union([Type.Literal('borrowed'), Type.Literal('returned'), Type.Literal('scrapped'), Type.Literal('all')], {
      description: 'borrowed 至少一行未归还 | returned 全部归还 | scrapped 无未归还行且至少一行报废 | all 不筛选（同省略）',
    }),
  ),
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '借用单号、物料名称/规格、条码、借用人' })),
  ...timeRangeQuery('借出时间'),
  company: CompanyQuery,
});
export type BorrowRecordsQuery = Static<typeof BorrowRecordsQuery>;

export const BorrowSlipView = Type.Object({
  borrow_no: Type.String(),
  request_id: Type.Integer(),
  status: Type.String({ description: 'borrowed | returned | scrapped (按整单汇总)' }),
  borrower_id: Type.Integer(),
  borrower_name: Type.String(),
  dispatch_operator: Type.String(),
  location: Type.String(),
  company_name: Type.String(),
  borrowed_at: Type.String(),
  total_quantity: Type.Number(),
  returned_quantity: Type.Number(),
  lines: Type.Array(BorrowLineView),
});
export type BorrowSlipView = Static<typeof BorrowSlipView>;

export const HISTORY_EVENTS = ['dispatch', 'transfer_initiated', 'transfer_accepted', 'transfer_rejected', 'return', 'split'] as const;
export type HistoryEventType = (typeof HISTORY_EVENTS)[number];

export const HistoryEventView = Type.Object({
  event: Type.String({ description: HISTORY_EVENTS.join(' | ') }),
  label: Type.String(),
  at: Type.String(),
  borrow_id: Type.Integer(),
  borrow_no: Type.String(),
  material_name: Type.String(),
  sku: Type.String(),
  actor_id: Nullable(Type.Integer()),
  actor_name: Nullable(Type.String()),
  quantity: Type.Number(),
  from_user_id: Nullable(Type.Integer()),
  from_user_name: Nullable(Type.String()),
  to_user_id: Nullable(Type.Integer()),
  to_user_name: Nullable(Type.String()),
  transfer_id: Nullable(Type.Integer()),
  return_id: Nullable(Type.Integer()),
  split_borrow_id: Nullable(Type.Integer({ description: '拆分出的新行 id' })),
  location: Nullable(Type.String()),
  reason: Nullable(Type.String()),
  remark: Nullable(Type.String()),
});
export type HistoryEventView = Static<typeof HistoryEventView>;

export const SlipParams = Type.Object({ no: Type.String({ minLength: 1, maxLength: 64 }) });
export type SlipParams = Static<typeof SlipParams>;
