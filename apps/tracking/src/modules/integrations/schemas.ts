import { Type, type Static, type TSchema } from 'typebox';
import { PositiveQuantity } from '@wms/platform';
import { LifecyclePhaseSchema, ProductStageSchema, ProductStatusSchema } from '../products/schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Text = (maxLength: number, description?: string) => Type.String({ maxLength, ...(description ? { description } : {}) });
/** An id of the inventory service: its ids start at 1, so 0 or less names nothing (contract §7: bad input, 422). */
const InventoryId = Type.Integer({ minimum: 1, maximum: 2147483647 });
/** Quantities are positive (contract §7: a zero or negative quantity is bad input, also in a notification). */
const Quantity = Nullable(PositiveQuantity);

/**
 * The fields every inventory notification shares (contract §5). Types are checked (422 when wrong);
 * every field is optional so that another department's message, whatever it leaves out, is ignored
 * with 200 rather than refused. Unknown fields are dropped.
 */
const NoticeFields = {
  event_id: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, pattern: '\\S', description: '消息 id；同一 event_id 重复投递不再处理 (duplicate: true)' }),
  ),
  company_name: Type.Optional(Nullable(Text(64, '数据所属部门；去空格并转大写后须等于 ORG_DEPARTMENT，否则忽略'))),
  operator: Type.Optional(Nullable(Text(64, '库存侧扫码的人（用户名）；写入审计'))),
};

export const StockInNotice = Type.Object(
  {
    ...NoticeFields,
    source_table: Type.Optional(Nullable(Text(32, 'stock_buy, stock_semi, stock_product'))),
    stock_id: Type.Optional(Nullable(InventoryId)),
    sku: Type.Optional(Nullable(Text(128))),
    serial_number: Type.Optional(Nullable(Text(64, '成品序列号；匹配 待仓库收货 的产品'))),
    base_id: Type.Optional(Nullable(InventoryId)),
    material_name: Type.Optional(Nullable(Text(200))),
    category: Type.Optional(Nullable(Text(255))),
    quantity: Type.Optional(Quantity),
    in_date: Type.Optional(Nullable(Text(32))),
  },
  { description: '库存服务的入库通知（合同 §5）' },
);
export type StockInNotice = Static<typeof StockInNotice>;

export const OutboundNoticeItem = Type.Object({
  stock_id: Type.Optional(Nullable(InventoryId)),
  sku: Type.Optional(Nullable(Text(128))),
  serial_number: Type.Optional(Nullable(Text(64))),
  quantity: Type.Optional(Quantity),
});

export const OutboundNotice = Type.Object(
  {
    ...NoticeFields,
    outbound_type: Type.Optional(Nullable(Text(32, 'SALES, USE, PRODUCTION；接收但不影响处理'))),
    outbound_no: Type.Optional(Nullable(Text(64))),
    // optional in the schema, so another department's message is ignored whatever it leaves out; required of ours
    items: Type.Optional(Type.Array(OutboundNoticeItem, { maxItems: 10000, description: '出库的库存行；有序列号的成品移到 已出库；本部门的消息必填' })),
  },
  { description: '库存服务的出库通知（合同 §5）' },
);
export type OutboundNotice = Static<typeof OutboundNotice>;

export const ReceiverAnswer = Type.Object({
  ok: Type.Literal(true),
  matched: Type.Boolean({ description: '是否更新了产品' }),
  reason: Type.Optional(Type.Literal('ignored_company', { description: '部门不符，消息被忽略' })),
  duplicate: Type.Optional(Type.Literal(true, { description: '该 event_id 已处理过，本次未做任何修改' })),
});
export type ReceiverAnswer = Static<typeof ReceiverAnswer>;

/** What the inventory service needs to prefill a stock-in from an identity card. */
export const ProductCard = Type.Object({
  serial_number: Type.String(),
  model: Type.String({ description: '型号（物料名称）' }),
  base_id: Type.Union([Type.Integer(), Type.Null()], { description: '库存物料 id（已知时）' }),
  category: Type.Union([Type.String(), Type.Null()], { description: '型号的物料分类（已知时）' }),
  status: ProductStatusSchema,
  lifecycle_phase: LifecyclePhaseSchema,
  current_stage: ProductStageSchema,
  department: Type.String({ description: '本实例服务的部门 (ORG_DEPARTMENT)' }),
  completed_at: Type.Union([Type.String(), Type.Null()]),
  stocked_in_at: Type.Union([Type.String(), Type.Null()]),
  shipped_at: Type.Union([Type.String(), Type.Null()]),
});
export type ProductCard = Static<typeof ProductCard>;
