import { Type, type Static } from 'typebox';
import { DateString, dayRangeQuery, PageQuery, PositiveQuantity } from '@wms/platform';
import { PURCHASE_DECISIONS } from './purchase-status.js';

const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableNumber = Type.Union([Type.Number(), Type.Null()]);
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const Company = Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号生效' }));

/** A purchase request as it leaves the service; the three price fields are absent without their codes. */
export const PurchaseRequestView = Type.Object({
  id: Type.Integer(),
  request_no: Type.String({ description: 'PUR-<yyyymmdd>-<hhmm>-<batch_seq>-<item_seq>（北京时间）' }),
  batch_key: Type.String({ description: 'request_no 去掉最后一段 -<item_seq>' }),
  base_id: Type.Integer(),
  material_name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  category: Type.String(),
  company_name: Type.String(),
  quantity: Type.Number(),
  unit_price: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '需要 inbound_purchase:unit_price' })),
  total_price: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '需要 inbound_purchase:total_price；= 数量 × 单价' })),
  tax_rate: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '需要 inbound_purchase:tax_rate；百分比' })),
  purchase_date: Type.String(),
  expected_date: NullableString,
  supplier_id: NullableInteger,
  supplier_name: NullableString,
  requester_id: Type.Integer(),
  requester_name: Type.String(),
  requester_email: NullableString,
  status: Type.Integer({ description: '0 待审批, 1 已审批, 2 已驳回, 3 已完成（已入库）, 4 已完结（已关闭）' }),
  status_label: Type.String(),
  remark: NullableString,
  decision_reason: Type.Union([Type.String(), Type.Null()], { description: '驳回或关闭的原因' }),
  approver_id: NullableInteger,
  approver_name: NullableString,
  approved_at: NullableString,
  rejected_at: NullableString,
  closed_at: NullableString,
  completed_at: NullableString,
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type PurchaseRequestView = Static<typeof PurchaseRequestView>;

export const PurchaseItemBody = Type.Object({
  base_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647, description: '物料 ID；不填时按 name + spec_model 匹配' })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: '物料名称（精确匹配，去除首尾空白）' })),
  spec_model: Type.Optional(Type.String({ maxLength: 200, description: '规格型号（精确匹配；不填视为空）' })),
  quantity: PositiveQuantity,
  unit_price: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 99999999.99 }), Type.Null()], { description: '含税单价；无 inbound_purchase:unit_price 时忽略' })),
  tax_rate: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 100 }), Type.Null()], { description: '税率（百分比）；无 inbound_purchase:tax_rate 时忽略' })),
  purchase_date: Type.Optional(DateString),
  expected_date: Type.Optional(Type.Union([DateString, Type.Null()], { description: '期望到货日期' })),
  supplier_id: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 2147483647 }), Type.Null()])),
  remark: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
});
export type PurchaseItemBody = Static<typeof PurchaseItemBody>;

export const SubmitPurchaseBody = Type.Object({
  items: Type.Array(PurchaseItemBody, { minItems: 1, maxItems: 200 }),
  company_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: '跨公司账号必填（否则 400 COMPANY_REQUIRED），在该公司的物料中匹配；其余账号按本公司' })),
});
export type SubmitPurchaseBody = Static<typeof SubmitPurchaseBody>;

export const PurchaseBatchView = Type.Object({ batch_key: Type.String(), requests: Type.Array(PurchaseRequestView) });
export type PurchaseBatchView = Static<typeof PurchaseBatchView>;

export const SEARCH_TYPES = ['all', 'no', 'name', 'spec_model', 'requester'] as const;
export type PurchaseSearchType = (typeof SEARCH_TYPES)[number];

export const PurchaseListQuery = Type.Object({
  ...PageQuery,
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
  keyword: Type.Optional(Type.String({ maxLength: 200 })),
  search_type: Type.Optional(Type.Union(SEARCH_TYPES.map((type) => Type.Literal(type)), {
    description: 'all（单号、物料名称、规格、备注、申请人）, no, name, spec_model, requester',
  })),
  ...dayRangeQuery('采购日期 purchase_date'),
  company: Company,
});
export type PurchaseListQuery = Static<typeof PurchaseListQuery>;

const Reason = Type.Optional(Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { description: '驳回或关闭的原因' }));

export const DecisionBody = Type.Object({
  action: Type.Union(PURCHASE_DECISIONS.map((action) => Type.Literal(action)), { description: 'approve 0→1, reject 0→2, close 1→4' }),
  reason: Reason,
});
export type DecisionBody = Static<typeof DecisionBody>;

export const BatchDecisionBody = Type.Object({
  ids: Type.Optional(Type.Array(Type.Integer({ minimum: 1, maximum: 2147483647 }), { minItems: 1, maxItems: 500 })),
  batch_key: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  action: DecisionBody.properties.action,
  reason: Reason,
});
export type BatchDecisionBody = Static<typeof BatchDecisionBody>;

export const BatchFailure = Type.Object({
  id: Type.Integer(),
  request_no: NullableString,
  code: Type.String(),
  msg: Type.String(),
  status: Type.Optional(Type.Integer()),
});

export const BatchDecisionResult = Type.Object({
  action: Type.String(),
  success: Type.Array(PurchaseRequestView),
  failed: Type.Array(BatchFailure),
});
export type BatchDecisionResult = Static<typeof BatchDecisionResult>;

export const BatchQuery = Type.Object({ batch_key: Type.String({ minLength: 1, maxLength: 64, description: '如 PUR-20250301-0930-0001（旧格式 PUR-20250301-0930）' }) });

export const NextBatchSeq = Type.Object({
  date: Type.String({ description: '北京时间的今天' }),
  next_batch_seq: Type.Integer({ description: '今天下一次提交将得到的批次序号（仅供参考，提交时才分配）' }),
});

export const ApprovedUnstockedQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '单号、物料名称或规格' })),
  base_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  ...dayRangeQuery('采购日期 purchase_date'),
  company: Company,
});
export type ApprovedUnstockedQuery = Static<typeof ApprovedUnstockedQuery>;

export const ALERT_LEVEL_FILTERS = ['red', 'yellow', 'none'] as const;

export const PendingPoolQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '名称、规格型号或分类' })),
  category: Type.Optional(Type.String({ maxLength: 255, description: '分类前缀' })),
  alert_level: Type.Optional(Type.Union([Type.Literal('red'), Type.Literal('yellow')])),
  company: Company,
});
export type PendingPoolQuery = Static<typeof PendingPoolQuery>;

const SupplierRef = Type.Union(
  [Type.Object({ id: Type.Integer(), name: Type.String(), lead_time_days: NullableInteger }), Type.Null()],
  { description: '该物料最近一次已审批或已完成的采购所用的供应商' },
);

/** A material with its supply, as the pool and the auto-fill answer it. */
export const SupplyItemView = Type.Object({
  base_id: Type.Integer(),
  name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  category: Type.String(),
  company_name: Type.String(),
  stock_quantity: Type.Number({ description: '实物库存（除不良品外全部，含借出）' }),
  available_quantity: Type.Number({ description: '在库行的可用数量' }),
  in_transit_quantity: Type.Number({ description: '在途：已审批未入库的采购数量' }),
  pending_purchase_quantity: Type.Number({ description: '待审批的采购数量（不计入有效库存）' }),
  effective_supply: Type.Number({ description: '有效库存 = 实物库存 + 在途' }),
  red_threshold: NullableNumber,
  yellow_threshold: NullableNumber,
  target_threshold: NullableNumber,
  target_quantity: NullableNumber,
  alert_level: Type.String({ description: 'red, yellow 或 none' }),
  suggested_qty: Type.Number({ description: 'max(1, 目标 − 有效库存)；目标 = target_threshold，否则 yellow_threshold，否则 red_threshold' }),
  referencePrice: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '需要 material_list:referencePrice' })),
  purchaseLink: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: '需要 material_list:purchaseLink' })),
  supplier: SupplierRef,
});
export type SupplyItemView = Static<typeof SupplyItemView>;

export const MaterialLookupQuery = Type.Object({
  base_id: Type.Optional(Type.Integer({ minimum: 1, maximum: 2147483647 })),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  spec_model: Type.Optional(Type.String({ maxLength: 200 })),
  company: Company,
});
export type MaterialLookupQuery = Static<typeof MaterialLookupQuery>;

export const AutoFillView = Type.Object({
  ...SupplyItemView.properties,
  in_pool: Type.Boolean({ description: '是否在待采购池中（有效库存 <= 红色或黄色阈值）' }),
  last_purchase: Type.Union([
    Type.Object({
      request_no: Type.String(),
      purchase_date: Type.String(),
      quantity: Type.Number(),
      status: Type.Integer(),
      unit_price: Type.Optional(NullableNumber),
      tax_rate: Type.Optional(NullableNumber),
      supplier_id: NullableInteger,
      supplier_name: NullableString,
    }),
    Type.Null(),
  ]),
});
export type AutoFillView = Static<typeof AutoFillView>;

export const SearchMaterialQuery = Type.Object({
  keyword: Type.String({ minLength: 1, maxLength: 200, description: '名称或规格型号（不区分大小写）' }),
  limit: Type.Optional(Type.Integer({ minimum: 1, 'x-cap': 50, description: '默认 20，最多 50' })),
  company: Company,
});
export type SearchMaterialQuery = Static<typeof SearchMaterialQuery>;

export const MaterialCandidate = Type.Object({
  base_id: Type.Integer(),
  name: Type.String(),
  spec_model: Type.String(),
  unit: Type.String(),
  category: Type.String(),
  company_name: Type.String(),
});
export type MaterialCandidate = Static<typeof MaterialCandidate>;

export const ApproverView = Type.Object({ id: Type.Integer(), username: Type.String(), name: Type.String() });

export const CompanyOnlyQuery = Type.Object({ company: Company });
