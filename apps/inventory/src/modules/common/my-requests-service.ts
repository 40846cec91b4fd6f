import { and, or, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { companyCondition, containsIgnoringCase, pageOf, pagingOf, queryRows, timeRangeCondition, toQuantity, type UseCaseContext } from '@wms/platform';
import { borrowRequests, outboundRequests, purchaseRequests, scrapRequests } from '../../db/schema/index.js';
import { statusLabel as borrowStatusLabel } from '../borrow/request-status.js';
import { statusLabel as outboundStatusLabel } from '../outbound/request-status.js';
import { purchaseStatusLabel } from '../purchase/purchase-status.js';
import { requestNumberCondition } from '../request-workflow/request-keyword.js';
import { statusLabel as scrapStatusLabel } from '../scrap/request-status.js';
import type { MyRequestsQuery, MyRequestView } from './schemas.js';

export const MY_REQUEST_SOURCES = ['outbound', 'borrow', 'scrap', 'purchase'] as const;
export type MyRequestSource = (typeof MY_REQUEST_SOURCES)[number];

const STATUS_LABEL: Record<MyRequestSource, (status: number) => string> = {
  outbound: outboundStatusLabel,
  borrow: borrowStatusLabel,
  scrap: scrapStatusLabel,
  purchase: purchaseStatusLabel,
};

interface MyRequestRow {
  biz_type: MyRequestSource;
  id: number;
  request_no: string | null;
  status: number;
  company_name: string;
  line_count: number;
  total_quantity: string | null;
  remark: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

/**
 * One SELECT per source, each the caller's own requests only (applicant, or requester for purchases),
 * in the shape every source shares (named once, by the column list of the union in listMyRequests).
 * Every request table's items_json lines carry `quantity` and `base_id`. A keyword (contract §8 names it
 * among every list's parameters) finds a request by its id or, case-insensitively, in its text: the purchase
 * request number, the remark (scrap: the reason) and the names and spec models of the materials asked for;
 * that text is built only when a keyword is sent, in each source's own WHERE.
 */
function sources(ctx: UseCaseContext, keyword: string | undefined): Record<MyRequestSource, SQL> {
  const me = ctx.actor.id;
  const linesOf = (items: unknown) => sql`jsonb_array_length(${items})::int,
    (select sum((line->>'quantity')::numeric) from jsonb_array_elements(${items}) line)::text`;
  const materialsOf = (items: unknown) => sql`(select string_agg(m.name || ' ' || m.spec_model, ' ')
    from jsonb_array_elements(${items}) line join materials m on m.id = (line->>'base_id')::int)`;
  const found = (id: AnyPgColumn, ...texts: (AnyPgColumn | SQL)[]) =>
    keyword ? sql` and ${or(requestNumberCondition(id, keyword), containsIgnoringCase(sql`concat_ws(' ', ${sql.join(texts, sql`, `)})`, keyword))}` : sql``;
  return {
    outbound: sql`select 'outbound', ${outboundRequests.id}, null::text, ${outboundRequests.status}, ${outboundRequests.companyName},
      ${linesOf(outboundRequests.itemsJson)}, ${outboundRequests.remark}, ${outboundRequests.createdAt}, ${outboundRequests.updatedAt}
      from ${outboundRequests} where ${outboundRequests.applicantId} = ${me}
      ${found(outboundRequests.id, outboundRequests.remark, materialsOf(outboundRequests.itemsJson))}`,
    borrow: sql`select 'borrow', ${borrowRequests.id}, null::text, ${borrowRequests.status}, ${borrowRequests.companyName},
      ${linesOf(borrowRequests.itemsJson)}, ${borrowRequests.remark}, ${borrowRequests.createdAt}, ${borrowRequests.updatedAt}
      from ${borrowRequests} where ${borrowRequests.applicantId} = ${me}
      ${found(borrowRequests.id, borrowRequests.remark, materialsOf(borrowRequests.itemsJson))}`,
    scrap: sql`select 'scrap', ${scrapRequests.id}, null::text, ${scrapRequests.status}, ${scrapRequests.companyName},
      ${linesOf(scrapRequests.itemsJson)}, ${scrapRequests.reason}, ${scrapRequests.createdAt}, ${scrapRequests.updatedAt}
      from ${scrapRequests} where ${scrapRequests.applicantId} = ${me}
      ${found(scrapRequests.id, scrapRequests.reason, materialsOf(scrapRequests.itemsJson))}`,
    purchase: sql`select 'purchase', ${purchaseRequests.id}, ${purchaseRequests.requestNo}, ${purchaseRequests.status}, ${purchaseRequests.companyName},
      1, ${purchaseRequests.quantity}::text, ${purchaseRequests.remark}, ${purchaseRequests.createdAt}, ${purchaseRequests.updatedAt}
      from ${purchaseRequests} where ${purchaseRequests.requesterId} = ${me}
      ${found(purchaseRequests.id, purchaseRequests.requestNo, purchaseRequests.remark,
        sql`(select m.name || ' ' || m.spec_model from materials m where m.id = ${purchaseRequests.baseId})`)}`,
  };
}

/**
 * GET /common/my-requests: the caller's own requests across outbound, borrow, scrap and purchase,
 * newest first, paged in the database: one UNION ALL for the page and one for the total.
 */
export async function listMyRequests(ctx: UseCaseContext, query: MyRequestsQuery) {
  const paging = pagingOf(query);
  const wanted = query.biz_type ? [query.biz_type] : [...MY_REQUEST_SOURCES];
  const all = sources(ctx, query.keyword?.trim() || undefined);
  const union = sql.join(wanted.map((source) => sql`(${all[source]})`), sql` union all `);
  // own requests within the caller's company scope (spec 2.1), as the outbound and borrow lists show them:
  // an account moved to another company no longer lists what it asked for in the old one; a cross-domain
  // caller may narrow by `company` (spec 2.1)
  const conditions = and(
    companyCondition(ctx.scope(query.company), sql`mine.company_name`),
    query.status === undefined ? undefined : sql`mine.status = ${query.status}`,
    timeRangeCondition(sql`mine.created_at`, query.start_date, query.end_date),
  );
  const filter = conditions ? sql`where ${conditions}` : sql``;
  const mine = sql`(${union}) mine(biz_type, id, request_no, status, company_name, line_count, total_quantity, remark, created_at, updated_at)`;
  return ctx.read(async (q) => {
    const rows = await queryRows<MyRequestRow>(
      q,
      sql`select * from ${mine} ${filter} order by mine.created_at desc, mine.biz_type, mine.id desc
          limit ${paging.limit} offset ${paging.offset}`,
    );
    const [total] = await queryRows<{ n: number }>(q, sql`select count(*)::int as n from ${mine} ${filter}`);
    return pageOf(rows.map(toMyRequestView), total?.n ?? 0, paging);
  });
}

function toMyRequestView(row: MyRequestRow): MyRequestView {
  return {
    biz_type: row.biz_type,
    id: row.id,
    request_no: row.request_no,
    status: row.status,
    status_label: STATUS_LABEL[row.biz_type](row.status),
    company_name: row.company_name,
    line_count: row.line_count,
    total_quantity: toQuantity(row.total_quantity),
    remark: row.remark,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}
