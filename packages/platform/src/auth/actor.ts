import { hasAnyPermission, hasPermission, SUPER_ADMIN } from './permissions.js';
import { resolveCompanyScope, type CompanyScope } from './company-scope.js';

/** The authenticated caller, loaded fresh from the user table on every request. */
export interface Actor {
  id: number;
  username: string;
  name: string;
  role: string;
  company: string | null;
  grants: ReadonlySet<string>;
}

export const CROSS_DOMAIN = 'crossDomain';

export const can = (actor: Actor, code: string) => hasPermission(actor, code);
export const canAny = (actor: Actor, codes: readonly string[]) => hasAnyPermission(actor, codes);
export const isSuperAdmin = (actor: Actor) => actor.role === SUPER_ADMIN;
export const isCrossDomain = (actor: Actor) => hasPermission(actor, CROSS_DOMAIN);

export function companyScopeOf(actor: Actor, requestedCompany?: string | null): CompanyScope {
  return resolveCompanyScope({ company: actor.company, crossDomain: isCrossDomain(actor) }, requestedCompany);
}
