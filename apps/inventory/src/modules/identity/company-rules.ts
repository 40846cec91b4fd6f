import { eq } from 'drizzle-orm';
import { AppError, isCrossDomain, type Actor, type Queryable, type UseCaseContext } from '@wms/platform';
import { users } from '../../db/schema/index.js';

/**
 * The company a created record belongs to: cross-domain callers must name it (400 otherwise),
 * everybody else always writes into their own company, whatever the body says.
 * User creation uses this alone (a new company comes into being with its first user).
 */
export function companyForCreate(actor: Actor, requested: string | undefined | null): string {
  if (isCrossDomain(actor)) return namedCompany(requested);
  if (!actor.company) throw new AppError('COMPANY_REQUIRED', '当前账号未归属任何公司，不能创建数据');
  return actor.company;
}

/**
 * The one company a read is about (the active stocktake session, …): cross-domain callers name it with the
 * `company` query parameter (400 COMPANY_REQUIRED naming it otherwise), everybody else reads their own.
 */
export function companyForRead(actor: Actor, requested: string | undefined | null): string {
  if (isCrossDomain(actor)) return namedCompany(requested, 'company', '跨公司账号查询时必须用 company 参数指定公司');
  if (!actor.company) throw new AppError('COMPANY_REQUIRED', '当前账号未归属任何公司', { field: 'company' });
  return actor.company;
}

/**
 * Contract §3: a cross-domain caller names company_name on every create (400 otherwise), also where a
 * referenced material or stock row would decide the company; the record must then be of that company.
 */
export function assertCompanyNamed(actor: Actor, requested: string | undefined | null): void {
  if (isCrossDomain(actor)) namedCompany(requested);
}

/** The company a cross-domain caller named in `field` (trimmed); 400 COMPANY_REQUIRED naming the field otherwise. */
function namedCompany(
  requested: string | undefined | null,
  field: 'company_name' | 'company' = 'company_name',
  msg = '跨公司账号创建数据时必须指定 company_name',
): string {
  const named = requested?.trim();
  if (!named) throw new AppError('COMPANY_REQUIRED', msg, { field });
  return named;
}

/**
 * companyForCreate for business records (materials, requests, sessions, …): a company named by a
 * cross-domain caller must be one some user belongs to, so a typo such as `NOPE_CO` is 400 instead of
 * data nobody can see.
 */
export async function companyForRecord(q: Queryable, actor: Actor, requested: string | undefined | null): Promise<string> {
  const company = companyForCreate(actor, requested);
  await assertCompanyForRecord(q, actor, company);
  return company;
}

/** The check of companyForRecord on a company companyForCreate already decided. */
export async function assertCompanyForRecord(q: Queryable, actor: Actor, company: string): Promise<void> {
  if (isCrossDomain(actor) && !(await companyHasUsers(q, company))) {
    throw new AppError('UNKNOWN_COMPANY', `公司 ${company} 不存在（没有任何用户属于该公司）`, { field: 'company_name', company });
  }
}

/**
 * companyForCreate decided before the caller's transaction, from an actor that may come from the cache
 * unconfirmed: a refusal is answered only once the account version confirmed that actor (a changed
 * account runs the request again instead).
 */
export async function companyBeforeTransaction(ctx: UseCaseContext, requested: string | undefined | null): Promise<string> {
  try {
    return companyForCreate(ctx.actor, requested);
  } catch (refusal) {
    await ctx.read(async () => undefined);
    throw refusal;
  }
}

async function companyHasUsers(q: Queryable, company: string): Promise<boolean> {
  const [found] = await q.select({ id: users.id }).from(users).where(eq(users.companyName, company)).limit(1);
  return Boolean(found);
}
