import { Type, type Static } from 'typebox';
import { DisplayName, LoginBody, loginResultSchema, Password, timeRangeQuery, Username, userListQuerySchema, userViewSchema } from '@wms/platform';
import { TRACKING_ROLES } from './roles.js';
import { LIFECYCLE_PHASES } from './data-scope.js';

export const RoleSchema = Type.Enum(TRACKING_ROLES);

export const UserView = userViewSchema({ department: Type.String() });
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

export { LoginBody };
export const LoginResult = loginResultSchema(UserView);

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
    /** Accounts stay in this instance's department: only ORG_DEPARTMENT itself is accepted (a no-op). */
    department: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserListQuery = userListQuerySchema({ role: Type.Optional(RoleSchema), ...timeRangeQuery('创建时间') });
export type UserListQuery = Static<typeof UserListQuery>;
