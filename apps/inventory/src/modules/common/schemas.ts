import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';

export const MyRequestsQuery = Type.Object({
  ...PageQuery,
  biz_type: Type.Optional(Type.Union(['outbound', 'borrow', 'scrap', 'purchase'].map((type) => Type.Literal(type)), { description: '只看一类申请' })),
  status: Type.Optional(Type.Integer({ minimum: 0, maximum: 4 })),
  keyword: Type.Optional(Type.String({ maxLength: 128, description: '单号（请求 ID、采购单号）、备注（报废为原因）、物料名称或规格（不区分大小写）' })),
  ...timeRangeQuery('提交时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效：只看该公司的申请；不传为全部公司' })),
});
export type MyRequestsQuery = Static<typeof MyRequestsQuery>;

export const MyRequestView = Type.Object({
  biz_type: Type.String({ description: 'outbound, borrow, scrap, purchase' }),
  id: Type.Integer({ description: '该类申请自己的 id' }),
  request_no: Type.Union([Type.String(), Type.Null()], { description: '采购申请单号；其他申请为 null' }),
  status: Type.Integer(),
  status_label: Type.String(),
  company_name: Type.String(),
  line_count: Type.Integer(),
  total_quantity: Type.Union([Type.Number(), Type.Null()]),
  remark: Type.Union([Type.String(), Type.Null()], { description: '备注（报废申请为报废原因）' }),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type MyRequestView = Static<typeof MyRequestView>;

const Option = Type.Object({ value: Type.Union([Type.String(), Type.Integer()]), label: Type.String() });
const Options = Type.Array(Option);

export const DictionaryLabels = Type.Object({
  stock_status: Options,
  source_table: Options,
  outbound_type: Options,
  biz_type: Options,
  request_status: Type.Object({ outbound: Options, borrow: Options, scrap: Options, purchase: Options }),
  borrow_line_status: Options,
  transfer_status: Options,
  return_type: Options,
  defective_status: Options,
  scrap_mode: Options,
  scrap_reason_category: Options,
  stocktake_mode: Options,
  stocktake_scope_type: Options,
});
