import { and, asc, countDistinct, desc, inArray, max } from 'drizzle-orm';
import { companyCondition, Decimal, pageOf, pagingOf, toQuantityOrZero, type Page, type UseCaseContext } from '@wms/platform';
import { transOutbound, type TransOutboundRow } from '../../db/schema/index.js';
import { outboundLineConditions, outboundLineLocation } from './outbound-filters.js';
import { toOutboundLineView } from './outbound-line-mapper.js';
import type { OutboundGroupView, OutboundListQuery } from './schemas.js';

/**
 * GET /outbound: a page of outbounds grouped by outbound_no, newest first, each with all its lines.
 * Two queries for the page (its outbound_nos, then their lines) plus the count; never one per group. A
 * line's location is its stock row's (outboundLineLocation).
 */
export async function listOutbounds(ctx: UseCaseContext, query: OutboundListQuery): Promise<Page<OutboundGroupView>> {
  const paging = pagingOf(query);
  const where = outboundLineConditions(ctx, query);
  return ctx.read(async (q) => {
    const latest = max(transOutbound.outboundTime);
    const groups = await q
      .select({ outboundNo: transOutbound.outboundNo })
      .from(transOutbound)
      .where(where)
      .groupBy(transOutbound.outboundNo)
      .orderBy(desc(latest), desc(transOutbound.outboundNo))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: countDistinct(transOutbound.outboundNo) }).from(transOutbound).where(where);
    const numbers = groups.map((group) => group.outboundNo);
    const found = numbers.length
      ? await q
          .select({ line: transOutbound, location: outboundLineLocation })
          .from(transOutbound)
          .where(and(inArray(transOutbound.outboundNo, numbers), companyCondition(ctx.scope(query.company), transOutbound.companyName)))
          .orderBy(asc(transOutbound.id))
      : [];
    const lines = found.map(({ line, location }) => ({ ...line, warehouseLocation: location }));
    const items = numbers.map((no) => toGroupView(lines.filter((line) => line.outboundNo === no)));
    return pageOf(items, total?.n ?? 0, paging);
  });
}

function toGroupView(lines: TransOutboundRow[]): OutboundGroupView {
  const first = lines[0]!;
  const total = lines.reduce((sum, line) => sum.plus(line.quantity), new Decimal(0));
  return {
    outbound_no: first.outboundNo,
    outbound_time: first.outboundTime.toISOString(),
    outbound_type: first.outboundType,
    request_id: first.requestId,
    applicant_id: first.applicantId,
    consumer_name: first.consumerName,
    operator: first.operator,
    company_name: first.companyName,
    total_quantity: toQuantityOrZero(total.toString()),
    items: lines.map(toOutboundLineView),
  };
}
