import { Type, type Static } from 'typebox';
import { dayRangeQuery, PageQuery, PositiveQuantity, timeRangeQuery } from '@wms/platform';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const Remark = Type.Union([Type.String({ maxLength: 2000 }), Type.Null()]);
export const MAX_BOM_LINES = 1000;

export const BomItemInput = Type.Object({
  child_id: Id,
  quantity: PositiveQuantity,
  remark: Type.Optional(Remark),
});
export type BomItemInput = Static<typeof BomItemInput>;

/**
 * Draft save and publish. `items` absent keeps the lines the draft has (or, for a new draft, those of the
 * current version); `remark` absent keeps the BOM-level remark the same way; null clears it.
 */
export const SaveBomBody = Type.Object({
  parent_id: Id,
  remark: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()], { description: 'BOM 级备注；需 bom_manage:remark，否则忽略（保持原值）' })),
  items: Type.Optional(Type.Array(BomItemInput, { maxItems: MAX_BOM_LINES, description: '子件行（整表覆盖）；不传则沿用草稿或当前版本' })),
});
export type SaveBomBody = Static<typeof SaveBomBody>;

/** A save after the fields the caller may not write were dropped. */
export type BomContent = { remark?: string | null; items?: BomItemInput[] };

export const ParentQuery = Type.Object({ parent_id: Id });
export type ParentQuery = Static<typeof ParentQuery>;

export const ParentParams = Type.Object({ parent_id: Id });
export const VersionQuery = Type.Object({
  version: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: '版本号（每个父件从 1 起）；不传为当前发布版本' })),
});

export const BomLineView = Type.Object({
  id: Type.Integer(),
  line_no: Type.Integer(),
  child_id: Type.Integer(),
  child_name: Type.String(),
  child_spec_model: Type.String(),
  child_category: Type.String(),
  child_unit: Type.String(),
  quantity: Type.Number({ description: '用量（每个父件）' }),
  remark: Type.Union([Type.String(), Type.Null()]),
});
export type BomLineView = Static<typeof BomLineView>;

const Timestamp = Type.Union([Type.String(), Type.Null()]);

const VersionFields = {
  bom_version_id: Type.Integer(),
  parent_id: Type.Integer(),
  version: Type.Integer(),
  status: Type.Union([Type.Literal('draft'), Type.Literal('published')], { description: 'draft 草稿，published 已发布（不可再改）' }),
  is_current: Type.Boolean({ description: '是否为当前发布版本（编号最大的已发布版本）' }),
  remark: Type.Union([Type.String(), Type.Null()], { description: 'BOM 级备注' }),
  company_name: Type.String(),
  created_by: Type.Union([Type.Integer(), Type.Null()]),
  created_by_name: Type.Union([Type.String(), Type.Null()]),
  published_by: Type.Union([Type.Integer(), Type.Null()]),
  published_by_name: Type.Union([Type.String(), Type.Null()]),
  published_at: Timestamp,
  created_at: Type.String(),
  updated_at: Type.String(),
};

const ParentFields = {
  parent_name: Type.String(),
  parent_spec_model: Type.String(),
  parent_category: Type.String(),
  parent_unit: Type.String(),
};

export const BomVersionView = Type.Object({
  ...VersionFields,
  ...ParentFields,
  child_count: Type.Integer(),
  items: Type.Array(BomLineView),
});
export type BomVersionView = Static<typeof BomVersionView>;

export const BomVersionSummary = Type.Object({
  ...VersionFields,
  child_count: Type.Integer(),
  serial_count: Type.Integer({ description: '按此版本生产并入库的成品行数' }),
});
export type BomVersionSummary = Static<typeof BomVersionSummary>;

export const BomListItem = Type.Object({
  ...ParentFields,
  ...VersionFields,
  draft_version: Type.Union([Type.Integer(), Type.Null()], { description: '未发布草稿的版本号' }),
  child_count: Type.Integer(),
  children: Type.Array(BomLineView),
});
export type BomListItem = Static<typeof BomListItem>;

export const BomListQuery = Type.Object({
  ...PageQuery,
  category: Type.Optional(Type.String({ maxLength: 255, description: '父件分类前缀: A/B 匹配 A/B 及 A/B/…' })),
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '父件名称、规格型号或分类（不区分大小写）' })),
  ...timeRangeQuery('所显示版本的创建时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号生效' })),
});
export type BomListQuery = Static<typeof BomListQuery>;

/** GET /bom/<parent_id>/versions. */
export const BomVersionsQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '版本备注（不区分大小写）' })),
  ...timeRangeQuery('版本创建时间'),
});
export type BomVersionsQuery = Static<typeof BomVersionsQuery>;

/** GET /bom/versions/<id>/serials. */
export const BuiltSerialsQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: 'SKU、序列号或库位（不区分大小写）' })),
  ...dayRangeQuery('入库日期 in_date'),
});
export type BuiltSerialsQuery = Static<typeof BuiltSerialsQuery>;

export const BomSummaryQuery = Type.Object({ company: BomListQuery.properties.company });

export const BomSummary = Type.Object({
  total: Type.Integer({ description: '有 BOM 的父件数' }),
  categories: Type.Array(Type.Object({ category: Type.String(), count: Type.Integer() }), { description: '按父件分类计数' }),
});
export type BomSummary = Static<typeof BomSummary>;

export const VersionIdParams = Type.Object({ id: Id });

export const BuiltSerialView = Type.Object({
  stock_id: Type.Integer(),
  sku: Type.String(),
  serial_number: Type.Union([Type.String(), Type.Null()]),
  status: Type.String(),
  warehouse_location: Type.String(),
  stock_quantity: Type.Number(),
  in_date: Type.Union([Type.String(), Type.Null()]),
  production_date: Type.Union([Type.String(), Type.Null()]),
});
export type BuiltSerialView = Static<typeof BuiltSerialView>;

export const DraftDeleted = Type.Object({ deleted: Type.Boolean() });
