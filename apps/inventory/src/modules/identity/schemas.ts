import { Type, type Static } from 'typebox';
import { DisplayName, LoginBody, loginResultSchema, Password, timeRangeQuery, Username, userListQuerySchema, userViewSchema } from '@wms/platform';
import { ROLES } from './permission-catalog.js';

export const RoleSchema = Type.Union(ROLES.map((role) => Type.Literal(role)));

export const UserView = userViewSchema({
  company_name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
});
export type UserView = Static<typeof UserView>;

export const MeView = Type.Intersect([UserView, Type.Object({ permissions: Type.Array(Type.String()) })]);

export { LoginBody };
export const LoginResult = loginResultSchema(UserView);

const Company = Type.String({ minLength: 1, maxLength: 64 });
const Email = Type.String({ format: 'email', maxLength: 254 });

export const CreateUserBody = Type.Object({
  username: Username,
  password: Password,
  name: DisplayName,
  role: RoleSchema,
  company_name: Type.Optional(Company),
  email: Type.Optional(Type.Union([Email, Type.Null()])),
  active: Type.Optional(Type.Boolean()),
});
export type CreateUserBody = Static<typeof CreateUserBody>;

export const BatchCreateUsersBody = Type.Object({
  users: Type.Array(CreateUserBody, { minItems: 1, maxItems: 500 }),
});
export type BatchCreateUsersBody = Static<typeof BatchCreateUsersBody>;

export const UpdateUserBody = Type.Object(
  {
    name: Type.Optional(DisplayName),
    role: Type.Optional(RoleSchema),
    company_name: Type.Optional(Company),
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    active: Type.Optional(Type.Boolean()),
    password: Type.Optional(Password),
  },
  { minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserListQuery = userListQuerySchema({
  role: Type.Optional(Type.String({ maxLength: 32 })),
  company: Type.Optional(Type.String({ maxLength: 64 })),
  ...timeRangeQuery('创建时间'),
});
export type UserListQuery = Static<typeof UserListQuery>;

export const RoleParams = Type.Object({ role_code: Type.String({ minLength: 1, maxLength: 32 }) });
export const RolePermissionsView = Type.Object({ role: Type.String(), permissions: Type.Array(Type.String()) });
export const RolePermissionsBody = Type.Object({
  permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 }),
});

export const ActiveUser = Type.Object({ id: Type.Integer(), name: Type.String() });
