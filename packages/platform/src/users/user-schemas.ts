import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { PageQuery } from '../http/schemas.js';

/** Account fields and the login exchange, the same in both services. */
export const Username = Type.String({ minLength: 2, maxLength: 64, pattern: '^[A-Za-z0-9_.@-]+$' });
/** A password being set; logging in accepts any stored one (see LoginBody). */
export const Password = Type.String({ minLength: 6, maxLength: 128 });
/** A person's name: at least one character that is not a space. */
export const DisplayName = Type.String({ minLength: 1, maxLength: 64, pattern: '\\S' });

export const LoginBody = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 64 }),
  password: Type.String({ minLength: 1, maxLength: 256 }),
});
export type LoginBody = Static<typeof LoginBody>;

/** A user as a service answers it; `placement` is where the service puts its users (company, department). */
export function userViewSchema<T extends TProperties>(placement: T) {
  return Type.Object({
    id: Type.Integer(),
    username: Type.String(),
    name: Type.String(),
    role: Type.String(),
    ...placement,
    active: Type.Boolean(),
    created_at: Type.String(),
  });
}

export const loginResultSchema = <T extends TSchema>(userView: T) => Type.Object({ token: Type.String(), user: userView });

/** The query of a user list (see userListConditions); `filters` are the service's own, e.g. role and company. */
export function userListQuerySchema<T extends TProperties>(filters: T) {
  return Type.Object({
    ...PageQuery,
    keyword: Type.Optional(Type.String({ maxLength: 64 })),
    ...filters,
    active: Type.Optional(Type.Boolean()),
  });
}
