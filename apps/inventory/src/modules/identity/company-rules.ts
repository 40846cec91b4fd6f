import { AppError, isCrossDomain, type Actor } from '@wms/platform';

/**
 * The company a created record belongs to: cross-domain callers must name it (400 otherwise),
 * everybody else always writes into their own company, whatever the body says.
 */
export function companyForCreate(actor: Actor, requested: string | undefined | null): string {
  if (isCrossDomain(actor)) {
    const named = requested?.trim();
    if (!named) throw new AppError('COMPANY_REQUIRED', '跨公司账号创建数据时必须指定 company_name');
    return named;
  }
  if (!actor.company) throw new AppError('COMPANY_REQUIRED', '当前账号未归属任何公司，不能创建数据');
  return actor.company;
}
