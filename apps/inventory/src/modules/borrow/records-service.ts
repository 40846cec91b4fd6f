import { and, asc, count, desc, inArray, min } from 'drizzle-orm';
import {
  databaseMessageOf,
  AppError,
  companyCondition,
  Decimal,
  pageOf,
  pagingOf,
  toQuantityOrZero,
  translateDatabaseError,
  type Page,
  type UseCaseContext,
} from '@wms/platform';
import { transBorrow, type TransBorrowRow } from '../../db/schema/index.js';
import { borrowerNameOf, lineLookupsFor, toLineView, type LineLookups } from './line-views.js';
import { slipLineConditions, slipStatusCondition, slipStatusOf } from './records-filters.js';
import type { BorrowRecordsQuery, BorrowSlipView } from './schemas.js';

/**
 * GET /borrow/records (spec 4.3): a page of slips (by borrow_no, newest first), each with all its lines
 * and the caller's flags on them. Five queries per page whatever its size: the slip numbers, their
 * count, their lines, the lines' PENDING transfers, the names.
 * Contract §2 Deviation: an unexpected failure answers 500 with the database's own message in msg (never
 * the SQL text, its parameters or the trace); the error handler logs it like every 500.
 */
export async function listBorrowRecords(ctx: UseCaseContext, query: BorrowRecordsQuery): Promise<Page<BorrowSlipView>> {
  try {
    return await readRecords(ctx, query);
  } catch (err) {
    if (err instanceof AppError) throw err;
    const known = translateDatabaseError(err);
    if (known) throw known;
    throw Object.assign(new AppError('INTERNAL', `借用记录查询失败: ${databaseMessageOf(err)}`), { cause: err });
  }
}

async function readRecords(ctx: UseCaseContext, query: BorrowRecordsQuery): Promise<Page<BorrowSlipView>> {
  const paging = pagingOf(query);
  const where = slipLineConditions(ctx, query);
  const having = slipStatusCondition(query.status);
  return ctx.read(async (q) => {
    const borrowedAt = min(transBorrow.borrowedAt);
    const slips = await q
      .select({ borrowNo: transBorrow.borrowNo })
      .from(transBorrow)
      .where(where)
      .groupBy(transBorrow.borrowNo)
      .having(having)
      .orderBy(desc(borrowedAt), desc(transBorrow.borrowNo))
      .limit(paging.limit)
      .offset(paging.offset);
    const matching = q.select({ borrowNo: transBorrow.borrowNo }).from(transBorrow).where(where).groupBy(transBorrow.borrowNo).having(having).as('slips');
    const [total] = await q.select({ n: count() }).from(matching);
    const numbers = slips.map((slip) => slip.borrowNo);
    const lines = numbers.length
      ? await q
          .select()
          .from(transBorrow)
          .where(and(inArray(transBorrow.borrowNo, numbers), companyCondition(ctx.scope(query.company), transBorrow.companyName)))
          .orderBy(asc(transBorrow.id))
      : [];
    const lookups = await lineLookupsFor(q, lines);
    const items = numbers.map((no) => toSlipView(lines.filter((line) => line.borrowNo === no), lookups, ctx));
    return pageOf(items, total?.n ?? 0, paging);
  });
}

function toSlipView(lines: TransBorrowRow[], lookups: LineLookups, ctx: UseCaseContext): BorrowSlipView {
  const first = lines.find((line) => line.splitFromId === null) ?? lines[0]!;
  const sum = (pick: (line: TransBorrowRow) => string) => lines.reduce((total, line) => total.plus(pick(line)), new Decimal(0));
  return {
    borrow_no: first.borrowNo,
    request_id: first.requestId,
    status: slipStatusOf(lines.map((line) => line.status)),
    borrower_id: first.borrowerId,
    borrower_name: borrowerNameOf(first, lookups),
    dispatch_operator: first.dispatchOperator,
    location: first.location,
    company_name: first.companyName,
    borrowed_at: first.borrowedAt.toISOString(),
    total_quantity: toQuantityOrZero(sum((line) => line.quantity).toString()),
    returned_quantity: toQuantityOrZero(sum((line) => line.returnedQuantity).toString()),
    lines: lines.map((line) => toLineView(line, lookups, ctx.actor)),
  };
}
