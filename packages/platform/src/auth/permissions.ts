/**
 * The permission bridge (spec 5.3, contract §3), read literally for codes of the form module:operation:
 *  - `X` and `X:operation` satisfy each other (coarser and finer grants);
 *  - `X:*` satisfies `X` and every `X:…`;
 *  - field codes (`material_list:purchaseLink`, …) need their own grant or the wildcard;
 *  - derived grants (`scrap_create:operation` → scrap_apply, scrap_execute) come from the caller.
 */
export const SUPER_ADMIN = 'SUPER_ADMIN';
/**
 * The permission of a route only the SUPER_ADMIN may call: no role is granted it (role grants accept catalog
 * codes only), and SUPER_ADMIN passes every code.
 */
export const SUPER_ADMIN_ONLY = 'super_admin_only';

export interface PermissionHolder {
  role: string;
  grants: ReadonlySet<string>;
}

export type DerivedGrants = Readonly<Record<string, readonly string[]>>;

function moduleOf(code: string): string {
  const colon = code.indexOf(':');
  return colon === -1 ? code : code.slice(0, colon);
}

/** Whether one stored grant satisfies the required code. */
export function grantSatisfies(grant: string, required: string): boolean {
  if (grant === required) return true;
  const module = moduleOf(required);
  if (grant === `${module}:*`) return true;
  if (required === module && grant === `${module}:operation`) return true;
  if (required === `${module}:operation` && grant === module) return true;
  return false;
}

/** Adds the codes a grant implies beyond the bridge (a source held through the bridge counts too). */
export function expandGrants(grants: Iterable<string>, derived: DerivedGrants): Set<string> {
  const expanded = new Set<string>(grants);
  for (const [source, implied] of Object.entries(derived)) {
    const held = [...expanded].some((grant) => grantSatisfies(grant, source));
    if (held) for (const code of implied) expanded.add(code);
  }
  return expanded;
}

export function hasPermission(holder: PermissionHolder, required: string): boolean {
  if (holder.role === SUPER_ADMIN) return true;
  // a holder's grants never change (an actor is rebuilt when its account changes): answers are kept per holder
  let answers = answered.get(holder);
  if (!answers) answered.set(holder, (answers = new Map()));
  let answer = answers.get(required);
  if (answer === undefined) {
    answer = [...holder.grants].some((grant) => grantSatisfies(grant, required));
    answers.set(required, answer);
  }
  return answer;
}

const answered = new WeakMap<PermissionHolder, Map<string, boolean>>();

export function hasAnyPermission(holder: PermissionHolder, required: readonly string[]): boolean {
  return required.some((code) => hasPermission(holder, code));
}

/** The effective codes of a holder, named in full against a catalog (what /auth/me shows). */
export function effectivePermissions(holder: PermissionHolder, catalog: readonly string[]): string[] {
  const effective = new Set<string>(holder.role === SUPER_ADMIN ? catalog : []);
  for (const code of catalog) if (hasPermission(holder, code)) effective.add(code);
  for (const grant of holder.grants) effective.add(grant);
  return [...effective].sort();
}
