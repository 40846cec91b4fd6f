import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';

const NullableNumber = Type.Union([Type.Number(), Type.Null()]);

/**
 * A material as it leaves the service. The four guarded fields are absent (not null) when the
 * caller may not read them (spec 2.3).
 */
export const MaterialView = Type.Object({
  id: Type.Integer(),
  base_id: Type.Integer({ description: '与 id 相同' }),
  name: Type.String(),
  spec_model: Type.String(),
  category: Type.String({ description: '以 / 分隔的分类路径，第一段为所属部门' }),
  unit: Type.String(),
  company_name: Type.String(),
  purchaseLink: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: '需要 material_list:purchaseLink' })),
  referencePrice: Type.Optional(Type.Union([Type.Number(), Type.Null()], { description: '需要 material_list:referencePrice' })),
  productImageRemark: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: '需要 material_list:remark_edit' })),
  manualLinkRemark: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: '需要 material_list:remark_edit' })),
  remark: Type.Union([Type.String(), Type.Null()]),
  red_threshold: NullableNumber,
  yellow_threshold: NullableNumber,
  target_threshold: NullableNumber,
  stock_quantity: Type.Optional(Type.Number({ description: '实物库存：除不良品外的全部库存（含借出）；列表、详情与导出中提供' })),
  available_quantity: Type.Optional(Type.Number({ description: '在库行的可用数量' })),
  in_transit_quantity: Type.Optional(Type.Number({ description: '在途：已审批、尚未入库的采购数量' })),
  effective_supply: Type.Optional(Type.Number({ description: '有效库存 = 实物库存 + 在途（与待采购池、库存预警同一规则）' })),
  alert_level: Type.Optional(Type.String({ description: 'red（<= 红色阈值）、yellow（<= 黄色阈值）或 none' })),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type MaterialView = Static<typeof MaterialView>;

const NullableText = (maxLength: number, description?: string) =>
  Type.Union([Type.String({ maxLength }), Type.Null()], description ? { description } : {});
const Threshold = Type.Union([Type.Number({ minimum: 0, maximum: 1e12 }), Type.Null()]);

/** The request body of a create; company_name counts only for cross-domain callers. */
export const CreateMaterialBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }),
  spec_model: Type.Optional(NullableText(200, '为 null 时存为空字符串')),
  category: Type.String({ minLength: 1, maxLength: 255, pattern: '[^\\s/]', description: '以 / 分隔的路径' }),
  unit: Type.Optional(NullableText(32, '为 null 时存为空字符串')),
  company_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' })),
  purchaseLink: Type.Optional(NullableText(2000)),
  referencePrice: Type.Optional(Type.Union([Type.Number({ minimum: 0, maximum: 99999999.99 }), Type.Null()])),
  productImageRemark: Type.Optional(NullableText(2000)),
  manualLinkRemark: Type.Optional(NullableText(2000)),
  remark: Type.Optional(NullableText(2000)),
  red_threshold: Type.Optional(Threshold),
  yellow_threshold: Type.Optional(Threshold),
  target_threshold: Type.Optional(Threshold),
});
export type CreateMaterialBody = Static<typeof CreateMaterialBody>;

/** An update is partial: an absent field stays as it is. */
export const UpdateMaterialBody = Type.Partial(CreateMaterialBody);
export type UpdateMaterialBody = Static<typeof UpdateMaterialBody>;

/** A create or update after the fields the caller may not write were dropped. */
export type MaterialInput = Partial<CreateMaterialBody>;

export const MaterialFilterQuery = {
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '名称、规格型号或分类（不区分大小写）' })),
  category: Type.Optional(Type.String({ maxLength: 255, description: '分类前缀: A/B 匹配 A/B 及 A/B/…，不匹配 A/BC' })),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号生效' })),
  alert_level: Type.Optional(Type.Union([Type.Literal('red'), Type.Literal('yellow'), Type.Literal('none')], {
    description: '预警级别：red（有效库存 <= 红色阈值）、yellow（<= 黄色阈值）、none',
  })),
  ...timeRangeQuery('创建时间'),
};
export type MaterialFilter = {
  keyword?: string;
  category?: string;
  company?: string;
  alert_level?: 'red' | 'yellow' | 'none';
  start_date?: string;
  end_date?: string;
};

export const MaterialListQuery = Type.Object({ ...PageQuery, ...MaterialFilterQuery });
export type MaterialListQuery = Static<typeof MaterialListQuery>;

export const MaterialExportQuery = Type.Object(MaterialFilterQuery);

export const CompanyQuery = Type.Object({ company: MaterialFilterQuery.company });

export const CategoryCount = Type.Object({ category: Type.String(), count: Type.Integer() });
export const CategorySummary = Type.Object({
  total: Type.Integer({ description: '范围内物料总数' }),
  categories: Type.Array(CategoryCount, { description: '按完整分类路径计数' }),
  top_level: Type.Array(CategoryCount, { description: '按第一段（所属部门）计数' }),
});
export type CategorySummary = Static<typeof CategorySummary>;

export const SpecSuggestionQuery = Type.Object({
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '规格型号包含的文字（不区分大小写）' })),
  name: Type.Optional(Type.String({ maxLength: 200, description: '物料名称包含的文字（不区分大小写）' })),
  company: MaterialFilterQuery.company,
});
export type SpecSuggestionQuery = Static<typeof SpecSuggestionQuery>;

