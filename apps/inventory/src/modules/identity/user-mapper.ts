import { baseUserView } from '@wms/platform';
import type { UserRow } from '../../db/schema/index.js';
import type { UserView } from './schemas.js';

/** The only way a user leaves the service: never with its password hash. */
export function toUserView(row: Pick<UserRow, 'id' | 'username' | 'name' | 'role' | 'companyName' | 'email' | 'active' | 'createdAt'>): UserView {
  return { ...baseUserView(row), company_name: row.companyName, email: row.email };
}
