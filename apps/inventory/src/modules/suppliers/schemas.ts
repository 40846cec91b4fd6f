import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';

const NullableString = Type.Union([Type.String(), Type.Null()]);

export const SupplierView = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  contact: Type.String({ description: '联系人、电话等' }),
  lead_time_days: Type.Union([Type.Integer(), Type.Null()], { description: '通常的交货周期（天）' }),
  remark: NullableString,
  company_name: Type.String(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type SupplierView = Static<typeof SupplierView>;

export const CreateSupplierBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S', description: '公司内唯一' }),
  contact: Type.Optional(Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: '为 null 时存为空字符串' })),
  lead_time_days: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 3650 }), Type.Null()])),
  remark: Type.Optional(Type.Union([Type.String({ maxLength: 2000 }), Type.Null()])),
  company_name: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '\\S', description: '仅跨公司账号：必须指定' })),
});
export type CreateSupplierBody = Static<typeof CreateSupplierBody>;

/** Partial; the company of a supplier never changes. */
export const UpdateSupplierBody = Type.Partial(Type.Omit(CreateSupplierBody, ['company_name']));
export type UpdateSupplierBody = Static<typeof UpdateSupplierBody>;

export const SupplierListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '名称或联系人（不区分大小写）' })),
  ...timeRangeQuery('创建时间'),
  company: Type.Optional(Type.String({ maxLength: 64, description: '仅跨公司账号生效' })),
});
export type SupplierListQuery = Static<typeof SupplierListQuery>;

export const DeletedSupplier = Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) });
