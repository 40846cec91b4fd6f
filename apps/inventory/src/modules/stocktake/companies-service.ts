import { sql } from 'drizzle-orm';
import { isCrossDomain, queryRows, type UseCaseContext } from '@wms/platform';

/**
 * GET /stocktake/companies (spec 4.6): the companies a caller may start a count for. Ordinary users: their
 * own only (none without a company); cross-domain callers: every company that has materials or users.
 */
export async function stocktakeCompanies(ctx: UseCaseContext): Promise<string[]> {
  if (!isCrossDomain(ctx.actor)) return ctx.actor.company ? [ctx.actor.company] : [];
  const rows = await ctx.read((q) =>
    queryRows<{ company: string }>(
      q,
      sql`select company_name as company from materials where company_name <> ''
          union select company_name from users where company_name is not null and company_name <> ''
          order by 1`,
    ),
  );
  return rows.map((row) => row.company);
}
