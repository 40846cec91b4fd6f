import { Type, type Static } from 'typebox';
import { DateString, PageQuery } from '@wms/platform';

export const AuditQuery = Type.Object({
  ...PageQuery,
  module: Type.Optional(Type.String({ maxLength: 64 })),
  action: Type.Optional(Type.String({ maxLength: 64, description: 'CREATE, UPDATE, DELETE; comma-separated for several' })),
  username: Type.Optional(Type.String({ maxLength: 64 })),
  target_keyword: Type.Optional(Type.String({ maxLength: 100 })),
  keyword: Type.Optional(
    Type.String({ maxLength: 100, description: '通用关键字（契约 §8）：不区分大小写，匹配对象 ID、对象名称、操作人账号或姓名' }),
  ),
  start_date: Type.Optional(DateString),
  end_date: Type.Optional(DateString),
});
export type AuditQuery = Static<typeof AuditQuery>;

export const AuditEntry = Type.Object({
  id: Type.Integer(),
  module: Type.String(),
  action: Type.String(),
  target_id: Type.Union([Type.String(), Type.Null()]),
  target_name: Type.Union([Type.String(), Type.Null()]),
  username: Type.String(),
  time: Type.String({ description: 'ISO 8601, Beijing time (+08:00)' }),
  source: Type.Union([Type.String(), Type.Null()]),
  details: Type.Unknown(),
});
export type AuditEntry = Static<typeof AuditEntry>;
