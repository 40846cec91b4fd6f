import { Type, type Static, type TSchema } from 'typebox';
import { NonNegativeQuantity, PageQuery, timeRangeQuery } from '@wms/platform';
import { StockKindSchema } from '../stock/schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const SessionId = Type.Integer({ minimum: 1, maximum: 2147483647, description: '盘点会话 id' });
const Company = Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效；不传为全部公司' }));
/** "The" active session's company (companyOfActiveSession). */
const ActiveSessionCompany = Type.Optional(
  Type.String({ maxLength: 64, description: '仅跨公司账号有效；不传时取唯一有进行中盘点的公司，多个公司都有则必须指定' }),
);
const Remark = Type.String({ maxLength: 1000 });
/** Numbers of a book quantity: null while a blind session is active (spec 4.6 rule 3), shown as '—'. */
const HiddenQuantity = Nullable(Type.Number());

export const StocktakeModeSchema = Type.Union([Type.Literal('blind'), Type.Literal('open')], { description: 'blind 盲盘, open 明盘' });

export const ActiveSessionQuery = Type.Object({ company: ActiveSessionCompany });
export type ActiveSessionQuery = Static<typeof ActiveSessionQuery>;

export const StartSessionBody = Type.Object({
  mode: StocktakeModeSchema,
  scope_type: Type.String({ maxLength: 16, description: 'full 全盘 | active 按库位（需 scope_config.locations）' }),
  scope_config: Type.Optional(
    Type.Object({
      locations: Type.Optional(
        // No maxItems: the 2,000 cap counts after trimming and de-duplication (contract §4), so only the 1 MiB body limit bounds the raw list.
        Type.Array(Type.String({ maxLength: 255 }), { description: '库位完整路径；去空格、去重、保持顺序后最多 2000 个' }),
      ),
    }),
  ),
  company_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '跨公司账号必填；普通账号固定为本公司' })),
});
export type StartSessionBody = Static<typeof StartSessionBody>;

export const SessionView = Type.Object({
  session_id: Type.Integer(),
  company_name: Type.String(),
  mode: Type.String(),
  scope_type: Type.String(),
  scope_config: Type.Object({ locations: Type.Array(Type.String()) }),
  status: Type.String({ description: 'active | finished' }),
  finish_reason: Nullable(Type.String({ description: 'completed（生成未盘结束）| superseded（被新会话替换）' })),
  initiator: Type.String(),
  initiator_id: Nullable(Type.Integer()),
  started_at: Type.String(),
  finished_at: Nullable(Type.String()),
});
export type SessionView = Static<typeof SessionView>;

export const StartSessionResult = Type.Object({
  ...SessionView.properties,
  superseded_count: Type.Integer({ description: '被替换的上一个进行中会话里的盘点记录数' }),
  superseded_session_id: Nullable(Type.Integer()),
});
export type StartSessionResult = Static<typeof StartSessionResult>;

export const ActiveSessionView = Type.Object({
  ...SessionView.properties,
  scanned: Type.Integer({ description: '已盘物品数：不同 (source_table, stock_id)，不含 system 生成的记录' }),
});
export type ActiveSessionView = Static<typeof ActiveSessionView>;

export const SessionIdBody = Type.Object({ session_id: SessionId });
export type SessionIdBody = Static<typeof SessionIdBody>;

export const ClearResult = Type.Object({ session_id: Type.Integer(), cleared: Type.Integer() });

export const DraftView = Type.Object({
  id: Type.Integer(),
  session_id: Type.Integer(),
  uuid: Type.String({ description: '物品标识 = 库存行 sku' }),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  base_id: Type.Integer(),
  material_name: Nullable(Type.String()),
  spec_model: Nullable(Type.String()),
  warehouse_location: Nullable(Type.String()),
  user_id: Type.String({ description: '最后操作人的显示名；生成的记录为 system' }),
  quantity: Type.Number({ description: '实盘数量' }),
  remark: Nullable(Type.String()),
  scan_time: Type.String(),
  company: Type.String(),
});
export type DraftView = Static<typeof DraftView>;

/** keyword and scan-time bounds of the lists of counts (draft list, variance report). */
const DraftFilterQuery = {
  keyword: Type.Optional(
    Type.String({ maxLength: 128, description: 'sku、物料名称、规格、库位、批次、序列号、盘点人或备注（不区分大小写）' }),
  ),
  ...timeRangeQuery('扫码时间'),
};

export const DraftListQuery = Type.Object({
  ...PageQuery,
  session_id: SessionId,
  uuid: Type.Optional(Type.String({ maxLength: 128, description: '精确匹配' })),
  ...DraftFilterQuery,
});
export type DraftListQuery = Static<typeof DraftListQuery>;

export const AddDraftBody = Type.Object({
  session_id: SessionId,
  barcode: Type.String({ minLength: 1, maxLength: 128, description: '扫描的条码：先精确匹配 sku，再模糊匹配' }),
  quantity: NonNegativeQuantity,
  remark: Type.Optional(Nullable(Remark)),
});
export type AddDraftBody = Static<typeof AddDraftBody>;

export const UpdateQuantityBody = Type.Object({
  session_id: SessionId,
  stock_id: Type.Integer({ minimum: 1, maximum: 2147483647 }),
  source_table: StockKindSchema,
  quantity: NonNegativeQuantity,
  remark: Type.Optional(Nullable(Remark)),
});
export type UpdateQuantityBody = Static<typeof UpdateQuantityBody>;

export const STATUS_FILTERS = ['all', 'scanned', 'unscanned', 'match', 'diff'] as const;
export type StatusFilter = (typeof STATUS_FILTERS)[number];

export const MergedListQuery = Type.Object({
  ...PageQuery,
  session_id: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 2147483647, description: '盘点会话 id；不传按会话不存在处理（本公司库存行，盲盘，无盘点数量）' }),
  ),
  keyword: Type.Optional(Type.String({ maxLength: 128, description: 'sku、物料名称、规格、库位、批次、序列号' })),
  status_filter: Type.Optional(
    Type.Union(STATUS_FILTERS.map((value) => Type.Literal(value)), { description: 'match、diff 在进行中的盲盘里为 400' }),
  ),
});
export type MergedListQuery = Static<typeof MergedListQuery>;

export const CountItemView = Type.Object({
  stock_id: Type.Integer(),
  source_table: Type.String(),
  uuid: Type.String(),
  sku: Type.String(),
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  warehouse_location: Type.String(),
  batch_number: Nullable(Type.String()),
  serial_number: Nullable(Type.String()),
  status: Type.String(),
  stock_qty: HiddenQuantity,
  counted_qty: Nullable(Type.Number({ description: '实盘数量；未盘为 null' })),
  diff_qty: HiddenQuantity,
  scanned: Type.Boolean({ description: '有人工盘点记录（system 生成的不算）' }),
  user_id: Nullable(Type.String()),
  scan_time: Nullable(Type.String()),
  remark: Nullable(Type.String()),
  book_moved: Type.Boolean({ description: '盘点之后账面（数量或库位）又变动过：该记录需要复盘' }),
});
export type CountItemView = Static<typeof CountItemView>;

export const MergedListResult = Type.Object({
  list: Type.Array(CountItemView),
  total: Type.Integer(),
  total_scanned: Type.Integer(),
  mode: Type.String({ description: '会话不存在时按 blind 处理' }),
  page: Type.Integer(),
  limit: Type.Integer(),
});

export const AllItemsQuery = Type.Object({
  ...PageQuery,
  session_id: Type.Optional(SessionId),
  keyword: Type.Optional(Type.String({ maxLength: 128, description: 'sku、物料名称、规格、库位、批次、序列号（同 merged-list）' })),
  company: ActiveSessionCompany,
});
export type AllItemsQuery = Static<typeof AllItemsQuery>;

export const AllItemsResult = Type.Object({
  items: Type.Array(CountItemView),
  total: Type.Integer(),
  total_scanned: Type.Integer(),
  mode: Type.String(),
  session_id: Nullable(Type.Integer()),
  page: Type.Integer(),
  limit: Type.Integer(),
});

export const GenerateMissingResult = Type.Object({
  session_id: Type.Integer(),
  generated: Type.Integer({ description: '新生成的 0 数量记录（system）' }),
  counted: Type.Integer({ description: '人工盘点的物品数' }),
  total: Type.Integer({ description: '会话中的全部记录数' }),
  status: Type.String(),
});

export const RecommendQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 365, default: 30 })),
  top_n: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
  company: Company,
});
export type RecommendQuery = Static<typeof RecommendQuery>;

export const RecommendedLocation = Type.Object({
  full_path: Type.String(),
  moves: Type.Integer(),
  sku_count: Type.Integer(),
  last_move: Type.String(),
});
export type RecommendedLocation = Static<typeof RecommendedLocation>;

export const TreeQuery = Type.Object({
  prefixes: Type.Optional(Type.String({ maxLength: 2000, description: '逗号分隔的名称前缀；按顶层节点的名称或完整路径匹配，保留整棵子树' })),
  company: Company,
});
export type TreeQuery = Static<typeof TreeQuery>;

export interface TreeNode {
  name: string;
  full_path: string;
  children: TreeNode[];
}
/** A location node; children have the same shape (recursive). */
export const TreeNodeView = Type.Object({
  name: Type.String(),
  full_path: Type.String(),
  children: Type.Array(Type.Unsafe<TreeNode>({ type: 'object', additionalProperties: true, description: '子节点 { name, full_path, children }' })),
});

export const SessionQuery = Type.Object({ session_id: SessionId });
export type SessionQuery = Static<typeof SessionQuery>;

export const ScanQuery = Type.Object({ session_id: SessionId, barcode: Type.String({ minLength: 1, maxLength: 128 }) });
export type ScanQuery = Static<typeof ScanQuery>;

export const ScannedItemView = Type.Object({
  session_id: Type.Integer(),
  in_scope: Type.Boolean({ description: '在本次盘点的冻结库位范围内' }),
  ...CountItemView.properties,
});
export type ScannedItemView = Static<typeof ScannedItemView>;

export const VarianceQuery = Type.Object({
  ...PageQuery,
  session_id: SessionId,
  only_diff: Type.Optional(Type.Boolean({ description: '只看有差异的记录；进行中的盲盘里为 400' })),
  ...DraftFilterQuery,
});
export type VarianceQuery = Static<typeof VarianceQuery>;

export const MOVED_REASONS = ['row_deleted', 'quantity_changed', 'location_changed'] as const;
export type MovedReason = (typeof MOVED_REASONS)[number];

export const VarianceRow = Type.Object({
  draft_id: Type.Integer(),
  uuid: Type.String(),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  base_id: Type.Integer(),
  material_name: Nullable(Type.String()),
  spec_model: Nullable(Type.String()),
  warehouse_location: Nullable(Type.String()),
  counted_qty: Type.Number(),
  book_qty: HiddenQuantity,
  book_qty_at_count: HiddenQuantity,
  diff_qty: HiddenQuantity,
  user_id: Type.String(),
  scan_time: Type.String(),
  remark: Nullable(Type.String()),
  book_moved: Type.Boolean(),
  moved_reason: Nullable(Type.String({ description: 'row_deleted | quantity_changed | location_changed' })),
  adjusted_at: Nullable(Type.String()),
});
export type VarianceRow = Static<typeof VarianceRow>;

export const VarianceReport = Type.Object({
  items: Type.Array(VarianceRow),
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  session_id: Type.Integer(),
  mode: Type.String(),
  status: Type.String(),
  book_hidden: Type.Boolean({ description: '进行中的盲盘：账面数量与差异不显示' }),
});

export const AdjustBody = Type.Object({
  session_id: SessionId,
  uuids: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 10000, description: '不传则调整全部有差异的记录' })),
  force: Type.Optional(Type.Boolean({ description: 'true: 盘点后账面又变动过的记录也按实盘数量调整' })),
});
export type AdjustBody = Static<typeof AdjustBody>;

export const SKIP_REASONS = ['not_counted', 'row_deleted', 'moved_after_count', 'available_short', 'no_difference'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

export const AdjustResult = Type.Object({
  session_id: Type.Integer(),
  applied: Type.Array(
    Type.Object({
      uuid: Type.String(),
      stock_id: Type.Integer(),
      before: Type.Number(),
      after: Type.Number(),
      difference: Type.Number(),
      forced: Type.Boolean(),
    }),
  ),
  skipped: Type.Array(
    Type.Object({
      uuid: Type.String(),
      stock_id: Nullable(Type.Integer()),
      reason: Type.String({ description: SKIP_REASONS.join(' | ') }),
      msg: Type.String(),
    }),
  ),
});
export type AdjustResult = Static<typeof AdjustResult>;
