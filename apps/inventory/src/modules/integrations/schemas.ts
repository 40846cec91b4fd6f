import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';
import { NOTIFICATION_KINDS, OUTBOX_STATUSES } from '../../db/schema/index.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const OutboxMessageView = Type.Object({
  id: Type.Integer(),
  event_id: Type.String(),
  kind: Type.String({ description: 'stock-in 或 outbound' }),
  status: Type.String({ description: 'pending 待投递, delivered 已送达, failed 失败' }),
  attempts: Type.Integer({ description: '已尝试投递的次数' }),
  next_attempt_at: Type.Union([Type.String(), Type.Null()], { description: '待投递时的下次尝试时间' }),
  last_error: NullableString,
  created_at: Type.String(),
  delivered_at: NullableString,
  payload: Type.Record(Type.String(), Type.Unknown(), { description: '发送给生产追踪服务的消息体' }),
});
export type OutboxMessageView = Static<typeof OutboxMessageView>;

export const OutboxListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Union(OUTBOX_STATUSES.map((status) => Type.Literal(status)), { description: 'pending, delivered, failed' })),
  kind: Type.Optional(Type.Union(NOTIFICATION_KINDS.map((kind) => Type.Literal(kind)), { description: 'stock-in, outbound' })),
  event_id: Type.Optional(Type.String({ format: 'uuid' })),
  company: Type.Optional(Type.String({ maxLength: 64, description: '只看该公司的通知（消息的 company_name）' })),
  keyword: Type.Optional(Type.String({ maxLength: 100, description: '消息内容中的任意文字（序列号、条码、出库单号、操作人…；不区分大小写）' })),
  ...timeRangeQuery('写入时间'),
});
export type OutboxListQuery = Static<typeof OutboxListQuery>;

/** A serial in a path: 1–64 printable ASCII characters without spaces (the tracking service's rule). */
export const SerialNumberParams = Type.Object({
  serial_number: Type.String({ minLength: 1, maxLength: 64, pattern: '^[\\x21-\\x7E]+$', description: '产品序列号（身份卡）' }),
});
export type SerialNumberParams = Static<typeof SerialNumberParams>;

export const IdentityCardQuery = Type.Object({
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效：在该公司的物料中匹配型号' })),
});
export type IdentityCardQuery = Static<typeof IdentityCardQuery>;

export const IdentityCardView = Type.Object({
  source_table: Type.Literal('stock_product'),
  serial_number: Type.String(),
  base_id: Type.Union([Type.Integer(), Type.Null()], { description: '型号匹配到的本公司物料；未匹配为 null，请按 material_name 选择物料' }),
  material_name: Type.String(),
  spec_model: NullableString,
  category: NullableString,
  unit: NullableString,
  company_name: NullableString,
  in_quantity: Type.Number({ description: '成品按序列号入库，数量为 1' }),
  production_date: Type.Union([Type.String(), Type.Null()], { description: '生产完成日期（北京时间）' }),
  tracking: Type.Object(
    {
      model: Type.String(),
      base_id: Type.Union([Type.Integer(), Type.Null()]),
      status: Type.String({ description: '生产追踪状态，如 待仓库收货' }),
      lifecycle_phase: Type.String(),
      current_stage: NullableString,
      department: NullableString,
      stocked_in_at: NullableString,
      shipped_at: NullableString,
    },
    { description: '生产追踪服务中的产品' },
  ),
  existing_stock: Type.Union(
    [Type.Object({ id: Type.Integer(), sku: Type.String(), status: Type.String(), company_name: Type.String() }), Type.Null()],
    { description: '已带有该序列号的成品库存行（避免重复入库）' },
  ),
});
export type IdentityCardView = Static<typeof IdentityCardView>;
