import { baseUserView } from '@wms/platform';
import type { UserRow } from '../../db/schema/index.js';
import type { UserView } from './schemas.js';

/** The only way a user leaves the service: never with its password hash. */
export function toUserView(row: Pick<UserRow, 'id' | 'username' | 'name' | 'role' | 'department' | 'active' | 'createdAt'>): UserView {
  return { ...baseUserView(row), department: row.department };
}
