import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';
import { Nullable } from '../request-workflow/schemas.js';

/** The filters of the list, its export and nothing else (spec 4.8; contract §8 parameter names). */
const filterFields = {
  module: Type.Optional(Type.String({ maxLength: 64, description: '模块原值（见 /audit/modules）；入库 = 入库管理、采购入库、成品入库、库存管理' })),
  action: Type.Optional(
    Type.String({ maxLength: 200, description: '逗号分隔多个：CREATE、UPDATE、DELETE，或历史别名 新增/创建/添加、修改/更新/编辑、删除/移除' }),
  ),
  target_keyword: Type.Optional(Type.String({ maxLength: 128, description: '不区分大小写，匹配对象 ID 或对象名称（存储值）' })),
  keyword: Type.Optional(
    Type.String({ maxLength: 128, description: '通用关键字（契约 §8）：不区分大小写，匹配对象 ID、对象名称（存储值）、操作人账号或姓名' }),
  ),
  ...timeRangeQuery('记录时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
};

export const AuditFilterQuery = Type.Object(filterFields);
export type AuditFilterQuery = Static<typeof AuditFilterQuery>;

export const AuditLogQuery = Type.Object({ ...PageQuery, ...filterFields });
export type AuditLogQuery = Static<typeof AuditLogQuery>;

export const AuditLogParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: 9007199254740991 }) });

const FieldChange = Type.Object({ field: Type.String(), old: Type.Unknown(), new: Type.Unknown() });

export const AuditLogView = Type.Object({
  id: Type.Integer(),
  module: Type.String({ description: '模块原值（历史英文值保持原样）' }),
  module_label: Type.String({ description: '模块显示名' }),
  action: Type.String({ description: 'CREATE、UPDATE 或 DELETE（历史中文别名已归并）' }),
  action_label: Nullable(Type.String()),
  table_name: Type.String(),
  target_id: Nullable(Type.String()),
  target_name: Nullable(Type.String({ description: '存储的对象名称（关键字匹配此值）' })),
  target_display: Nullable(Type.String({ description: '<条码> - <物料名称> (<规格型号>)；仅在可唯一确定时填写' })),
  summary: Type.String(),
  username: Type.String({ description: 'system 表示系统操作' }),
  user_display: Nullable(Type.String({ description: '操作人姓名' })),
  company_name: Nullable(Type.String()),
  source: Nullable(Type.String({ description: '请求路径（去掉 /api/v1 前缀与查询串）' })),
  time: Type.String({ description: '北京时间 ISO 8601（+08:00）' }),
  details: Type.Object(
    {
      created: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      deleted_snapshot: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      payload: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      snapshot: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      changes: Type.Optional(Type.Array(FieldChange)),
    },
    { additionalProperties: true, description: '快照（凭据类字段已移除，对象表示已丢弃，空值与空串之间的变化已去掉）' },
  ),
});
export type AuditLogView = Static<typeof AuditLogView>;

export const ModuleOption = Type.Object({ value: Type.String(), label: Type.String() });

const StringMap = Type.Record(Type.String(), Type.String());

export const AuditLabelsView = Type.Object({
  fieldLabels: StringMap,
  fieldLabelsByModule: Type.Record(Type.String(), StringMap, { description: '按模块的字段名（先于 fieldLabels），如 BOM管理 的 quantity 为 用量' }),
  enumLabels: Type.Object({
    byModule: Type.Record(Type.String(), Type.Record(Type.String(), StringMap), { description: '先按 (模块, 字段) 匹配' }),
    byField: Type.Record(Type.String(), StringMap, { description: '再按字段匹配' }),
  }),
  idReferences: Type.Record(Type.String(), StringMap, { description: '模块 → 字段 → 所指对象（user、material、stock、menu…）；* 适用于所有模块' }),
  snapshotViews: Type.Array(Type.Object({ key: Type.String(), title: Type.String() })),
  hiddenFields: Type.Array(Type.String(), { description: '不展示的技术字段' }),
  hiddenFieldSuffixes: Type.Array(Type.String(), { description: '字段名以这些结尾的也不展示（如 embedding）' }),
  moduleDisplay: StringMap,
  moduleGroups: Type.Record(Type.String(), Type.Array(Type.String())),
  actionLabels: StringMap,
});

export const DailyReportQuery = Type.Object({
  date: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description: 'YYYY-MM-DD（北京时间），默认今天' })),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号有效' })),
});
export type DailyReportQuery = Static<typeof DailyReportQuery>;
