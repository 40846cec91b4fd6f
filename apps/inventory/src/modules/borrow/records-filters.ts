import { and, sql, type SQL } from 'drizzle-orm';
import { canAny, companyCondition, isCrossDomain, keywordPattern, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { transBorrow, users } from '../../db/schema/index.js';
import { BORROW_APPROVAL, BORROW_DISPATCH } from './request-access.js';
import type { BorrowRecordsQuery } from './schemas.js';

/**
 * Contract §3: an ordinary user (without op_borrow_approval, op_borrow_dispatch or crossDomain) sees a
 * slip when they borrowed it, hold one of its lines, or a PENDING transfer of one of its lines waits
 * for them. Everybody else sees every slip of their company scope.
 */
function visibleSlips(ctx: UseCaseContext): SQL | undefined {
  if (isCrossDomain(ctx.actor) || canAny(ctx.actor, [BORROW_APPROVAL, BORROW_DISPATCH])) return undefined;
  const me = ctx.actor.id;
  return sql`${transBorrow.borrowNo} in (
    select v.borrow_no from trans_borrow v
     where v.borrower_id = ${me} or v.current_holder_id = ${me}
        or exists (select 1 from trans_borrow_transfer x where x.borrow_id = v.id and x.status = 'PENDING' and x.to_user_id = ${me}))`;
}

/**
 * A slip matches a keyword when any of its lines does: slip number, material, spec, sku or borrower (by
 * the name shown, the user table's, and by the name stored at dispatch).
 */
function keywordCondition(keyword: string | undefined): SQL | undefined {
  const pattern = keywordPattern(keyword);
  if (!pattern) return undefined;
  return sql`${transBorrow.borrowNo} in (
    select k.borrow_no from trans_borrow k
     where k.borrow_no ilike ${pattern} or k.material_name ilike ${pattern} or k.spec_model ilike ${pattern}
        or k.sku ilike ${pattern} or k.borrower_name ilike ${pattern}
        or exists (select 1 from ${users} u where u.id = k.borrower_id and u.name ilike ${pattern}))`;
}

/** The WHERE on trans_borrow lines; every line of a matching slip passes it. */
export function slipLineConditions(ctx: UseCaseContext, query: BorrowRecordsQuery): SQL | undefined {
  return and(
    companyCondition(ctx.scope(query.company), transBorrow.companyName),
    visibleSlips(ctx),
    keywordCondition(query.keyword),
    timeRangeCondition(transBorrow.borrowedAt, query.start_date, query.end_date),
  );
}

/** The status filter, aggregated per slip (spec 4.3): borrowed = at least one line still out. */
export function slipStatusCondition(status: BorrowRecordsQuery['status']): SQL | undefined {
  const anyOut = sql`bool_or(${transBorrow.status} = 'borrowed')`;
  switch (status) {
    case 'borrowed':
      return anyOut;
    case 'returned':
      return sql`bool_and(${transBorrow.status} = 'returned')`;
    case 'scrapped':
      return sql`not ${anyOut} and bool_or(${transBorrow.status} = 'scrapped')`;
    default: // absent or 'all'
      return undefined;
  }
}

/** The same aggregation over a slip's lines, for its answer. */
export function slipStatusOf(statuses: readonly string[]): 'borrowed' | 'returned' | 'scrapped' {
  if (statuses.includes('borrowed')) return 'borrowed';
  if (statuses.includes('scrapped')) return 'scrapped';
  return 'returned';
}
