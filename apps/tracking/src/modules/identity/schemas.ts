import { Type, type Static } from 'typebox';
import { PageQuery } from '@wms/platform';
import { TRACKING_ROLES } from './roles.js';
import { LIFECYCLE_PHASES } from './data-scope.js';

export const RoleSchema = Type.Enum(TRACKING_ROLES);

export const UserView = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  role: Type.String(),
  department: Type.String(),
  active: Type.Boolean(),
  created_at: Type.String(),
});
export type UserView = Static<typeof UserView>;

export const ScopeView = Type.Object(
  {
    phases: Type.Array(Type.Enum(LIFECYCLE_PHASES)),
    labels: Type.Record(Type.String(), Type.String()),
    unrestricted: Type.Boolean(),
  },
  { description: '数据范围: 可见的生命周期阶段及其中文名称; unrestricted 为 true 时不过滤, phases 为空时什么都看不到' },
);

export const MeView = Type.Intersect([UserView, Type.Object({ scope: ScopeView })]);

export const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
});
export type LoginBody = Static<typeof LoginBody>;

export const LoginResult = Type.Object({ token: Type.String(), user: UserView });

const Username = Type.String({ minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' });
const Password = Type.String({ minLength: 6, maxLength: 128 });
const DisplayName = Type.String({ minLength: 1, maxLength: 64 });

export const CreateUserBody = Type.Object(
  {
    username: Username,
    password: Password,
    name: DisplayName,
    role: RoleSchema,
    active: Type.Optional(Type.Boolean()),
  },
  { description: '新账号总是属于本实例的部门 (ORG_DEPARTMENT)' },
);
export type CreateUserBody = Static<typeof CreateUserBody>;

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(DisplayName),
    role: Type.Optional(RoleSchema),
    active: Type.Optional(Type.Boolean()),
    password: Type.Optional(Password),
  },
  { minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 64 })),
  role: Type.Optional(RoleSchema),
  active: Type.Optional(Type.Boolean()),
});
export type UserListQuery = Static<typeof UserListQuery>;
