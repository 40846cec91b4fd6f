import { Type, type Static } from 'typebox';
import { PageQuery } from '@wms/platform';
import { ROLES } from './permission-catalog.js';

export const RoleSchema = Type.Union(ROLES.map((role) => Type.Literal(role)));

export const UserView = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  name: Type.String(),
  role: Type.String(),
  company_name: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  active: Type.Boolean(),
  created_at: Type.String(),
});
export type UserView = Static<typeof UserView>;

export const MeView = Type.Intersect([UserView, Type.Object({ permissions: Type.Array(Type.String()) })]);

export const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
});
export type LoginBody = Static<typeof LoginBody>;

export const LoginResult = Type.Object({ token: Type.String(), user: UserView });

const Username = Type.String({ minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' });
const Password = Type.String({ minLength: 6, maxLength: 128 });
const Company = Type.String({ minLength: 1, maxLength: 64 });
const Email = Type.String({ format: 'email', maxLength: 254 });

export const CreateUserBody = Type.Object({
  username: Username,
  password: Password,
  name: Type.String({ minLength: 1, maxLength: 64 }),
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
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    role: Type.Optional(RoleSchema),
    company_name: Type.Optional(Company),
    email: Type.Optional(Type.Union([Email, Type.Null()])),
    active: Type.Optional(Type.Boolean()),
    password: Type.Optional(Password),
  },
  { minProperties: 1 },
);
export type UpdateUserBody = Static<typeof UpdateUserBody>;

export const UserListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 64 })),
  role: Type.Optional(Type.String({ maxLength: 32 })),
  company: Type.Optional(Type.String({ maxLength: 64 })),
  active: Type.Optional(Type.Boolean()),
});
export type UserListQuery = Static<typeof UserListQuery>;

export const RoleParams = Type.Object({ role_code: Type.String({ minLength: 1, maxLength: 32 }) });
export const RolePermissionsView = Type.Object({ role: Type.String(), permissions: Type.Array(Type.String()) });
export const RolePermissionsBody = Type.Object({
  permissions: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 500 }),
});

export const ActiveUser = Type.Object({ id: Type.Integer(), name: Type.String() });
