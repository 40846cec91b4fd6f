import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { NonNegativeQuantity, validationFailed } from '@wms/platform';
import { SCAN_DRAFT_BIZ_TYPES } from '../../db/schema/index.js';

export const BizTypeSchema = Type.Union(SCAN_DRAFT_BIZ_TYPES.map((type) => Type.Literal(type)), {
  description: '业务类型: outbound, borrow, scrap, purchase, stocktake',
});

/** A request id as the flows name it: a number (outbound, borrow, scrap, purchase) or a session uuid. */
const RequestId = Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })], {
  description: '申请 id（数字）或盘点会话 session_id',
});

const Text = (maxLength = 200) => Type.Optional(Type.Union([Type.String({ maxLength }), Type.Null()]));
/** A record id as every other body takes it: a key the database can hold (contract §7: an id that cannot exist is 400). */
const Id = Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()]));

/**
 * Any other display field of a line (spec 2.11: the snapshot includes display fields such as …): kept as sent
 * when it is a short scalar, so a handheld gets back whatever it showed. A pattern, not additionalProperties:
 * the platform drops additional properties before validation.
 */
const OtherDisplayFields = { '^.*$': Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()]) };

/** One scanned line with the display fields the handheld shows again when the draft is reopened. */
export const DraftItem = Type.Object({
  barcode: Text(128),
  sku: Text(128),
  stock_id: Id,
  source_table: Text(32),
  base_id: Id,
  name: Text(),
  material_name: Text(),
  specification: Text(),
  spec_model: Text(),
  unit: Text(32),
  location: Text(255),
  warehouse_location: Text(255),
  batch_number: Text(128),
  serial_number: Text(128),
  quantity: Type.Optional(NonNegativeQuantity),
  scanned_quantity: Type.Optional(NonNegativeQuantity),
  requested_quantity: Type.Optional(NonNegativeQuantity),
  remark: Text(500),
}, { patternProperties: OtherDisplayFields });
export type DraftItem = Static<typeof DraftItem>;

export const DraftKeyQuery = Type.Object({
  biz_type: BizTypeSchema,
  request_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }),
});
export type DraftKeyQuery = Static<typeof DraftKeyQuery>;

export const SaveDraftKey = Type.Object({ biz_type: BizTypeSchema, request_id: RequestId });

export const SaveDraftBody = Type.Object({
  ...SaveDraftKey.properties,
  items: Type.Array(DraftItem, { maxItems: 2000, description: '整单覆盖; 空数组删除草稿' }),
});
export type SaveDraftBody = Static<typeof SaveDraftBody>;

export const DraftView = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  biz_type: Type.String(),
  request_id: Type.Union([Type.Integer(), Type.String()]),
  items: Type.Array(DraftItem),
  items_json: Type.Array(DraftItem, { description: '整单快照（spec 2.11 的 items_json，与 items 相同）' }),
  updated_at: Type.String(),
});
export type DraftView = Static<typeof DraftView>;

export const SaveResult = Type.Object({
  saved: Type.Boolean(),
  deleted: Type.Boolean(),
  draft: Type.Union([DraftView, Type.Null()]),
});

export const DeleteResult = Type.Object({ deleted: Type.Boolean() });

export const OverviewItem = Type.Object({
  biz_type: Type.String(),
  request_id: Type.Union([Type.Integer(), Type.String()]),
  lines: Type.Integer({ description: '草稿中的行数' }),
  scanned_quantity: Type.Number({ description: '已扫描数量合计' }),
  requested_quantity: Type.Union([Type.Number(), Type.Null()], { description: '行上带的申请数量合计（没有则为 null）' }),
  updated_at: Type.String(),
});

/**
 * DELETE names the draft in the query or in an optional JSON body; both parts are required in one of them.
 * A refusal names the part that is missing or wrong (contract §2), as the schema validation of GET does.
 */
export function draftKeyOf(query: Partial<DraftKeyQuery>, body: unknown): DraftKeyQuery {
  const sent = body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const bizType = query.biz_type ?? sent.biz_type;
  const requestId = query.request_id ?? sent.request_id;
  if (bizType === undefined || bizType === null) throw validationFailed('缺少必填字段 biz_type', { field: 'biz_type' });
  if (!Value.Check(BizTypeSchema, bizType)) {
    throw validationFailed(`字段 biz_type 不合法: 应当是以下值之一 (${SCAN_DRAFT_BIZ_TYPES.join(', ')})`, { field: 'biz_type' });
  }
  if (requestId === undefined || requestId === null) throw validationFailed('缺少必填字段 request_id', { field: 'request_id' });
  // a request id is a number or a short id text; anything else (an object, a list) is no request id
  const requestText = typeof requestId === 'number' || typeof requestId === 'string' ? String(requestId) : '';
  if (!Value.Check(DraftKeyQuery.properties.request_id, requestText)) {
    throw validationFailed('字段 request_id 不合法: 应为申请 id（数字）或盘点会话 id（字母、数字、_、-，至多 64 个字符）', { field: 'request_id' });
  }
  return { biz_type: bizType, request_id: requestText };
}
