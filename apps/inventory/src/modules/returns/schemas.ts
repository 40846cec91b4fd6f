import { Type, type Static, type TSchema } from 'typebox';
import { PageQuery, PositiveQuantity, timeRangeQuery } from '@wms/platform';
import { RETURN_TYPES } from '../../db/schema/index.js';
import { LedgerEntryView } from '../defective/schemas.js';
import { OutboundRequestView } from '../outbound/schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });

export const ReturnTypeSchema = Type.Union(RETURN_TYPES.map((type) => Type.Literal(type)), {
  description: 'good 良品 (加回原库存行) | defective 不良品 (登记不良品台账, 不动库存)',
});

export const ReturnFromOutboundBody = Type.Object({
  outbound_id: Type.Integer({ minimum: 1, maximum: 2147483647, description: '原出库记录 (trans_outbound 明细行) id' }),
  return_type: ReturnTypeSchema,
  quantity: PositiveQuantity,
  reason: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  need_reissue: Type.Optional(Type.Boolean({ default: false, description: '是否补发' })),
  reissue_qty: Type.Optional(Nullable(PositiveQuantity)),
  reissue_applicant_id: Type.Optional(Nullable(Id)),
});
export type ReturnFromOutboundBody = Static<typeof ReturnFromOutboundBody>;

/** A return record (spec 2.7), also the row of GET /outbound/returns. */
export const ReturnView = Type.Object({
  id: Type.Integer(),
  outbound_id: Type.Integer(),
  outbound_no: Type.String({ description: '原出库单号' }),
  return_type: Type.String(),
  return_type_label: Type.String({ description: '良品 | 不良品' }),
  quantity: Type.Number(),
  reason: Type.String(),
  operator: Type.String({ description: '经办人用户名' }),
  operator_id: Nullable(Type.Integer()),
  company_name: Type.String({ description: '退货时的公司快照' }),
  company: Type.String({ description: '同 company_name（规格 4.1 退货列表的字段名）' }),
  stock_id: Type.Integer(),
  source_table: Type.String(),
  base_id: Type.Integer(),
  sku: Type.String(),
  material_name: Type.String(),
  spec_model: Type.String(),
  created_at: Type.String(),
  time: Type.String({ description: '同 created_at' }),
});
export type ReturnView = Static<typeof ReturnView>;

export const ReturnResult = Type.Object({
  return: ReturnView,
  ledger_entry: Nullable(LedgerEntryView),
  reissue_request: Nullable(OutboundRequestView),
});
export type ReturnResult = Static<typeof ReturnResult>;

export const ReturnListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '匹配出库单号、物料名称、规格、sku、原因、经办人' })),
  return_type: Type.Optional(ReturnTypeSchema),
  ...timeRangeQuery('退货时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type ReturnListQuery = Static<typeof ReturnListQuery>;
