/**
 * Company isolation (spec 2.1): every list, detail, export and write is limited to the caller's company.
 * SUPER_ADMIN and crossDomain holders see all companies, or one when they name it; a token with no
 * company matches nothing.
 */
export type CompanyScope = { kind: 'all' } | { kind: 'one'; company: string } | { kind: 'none' };

export function resolveCompanyScope(
  caller: { company: string | null; crossDomain: boolean },
  requestedCompany?: string | null,
): CompanyScope {
  if (caller.crossDomain) {
    const wanted = requestedCompany?.trim();
    return wanted ? { kind: 'one', company: wanted } : { kind: 'all' };
  }
  return caller.company ? { kind: 'one', company: caller.company } : { kind: 'none' };
}

export function scopeAllows(scope: CompanyScope, company: string | null | undefined): boolean {
  if (scope.kind === 'all') return true;
  if (scope.kind === 'none') return false;
  return company === scope.company;
}
