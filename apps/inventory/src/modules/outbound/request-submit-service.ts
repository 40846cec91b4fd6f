import { statement, tableColumns, toDecimalString, type Tx, type UseCaseContext } from '@wms/platform';
import { OUTBOUND_STATUS, outboundRequests, type OutboundRequestRow, type OutboundType } from '../../db/schema/index.js';
import { assertCompanyForRecord, companyBeforeTransaction } from '../identity/company-rules.js';
import {
  candidatesStatement,
  planFromCandidates,
  planReservation,
  takeReservation,
  type RequestedItem,
  type ReservationPlan,
  type ReservedStock,
} from '../reservation/index.js';
import { toRequestView } from './request-mapper.js';
import type { OutboundRequestView, SubmitRequestBody } from './schemas.js';

export interface NewOutboundRequest {
  applicantId: number;
  companyName: string;
  outboundType: OutboundType;
  items: readonly RequestedItem[];
  remark?: string | null;
  /** 0 for a submission; 1 for an approval-free reissue created from a return (spec 4.1 rule 3). */
  status?: typeof OUTBOUND_STATUS.pending | typeof OUTBOUND_STATUS.approved;
  sourceReturnId?: number | null;
}

/**
 * Creates a request with its lines allocated and reserved at once, strictly: a shortage throws
 * 400 STOCK_SHORTAGE and the caller's transaction writes nothing. Used by the return-with-reissue flow,
 * inside the caller's transaction; the submission below does the same steps with its reads and its
 * COMMIT folded into the round trips around them.
 */
export async function createReservedRequest(tx: Tx, now: Date, input: NewOutboundRequest): Promise<{ row: OutboundRequestRow; reserved: ReservedStock }> {
  const plan = await planReservation(tx, input.companyName, input.items);
  const reserved = await takeReservation(tx, plan, insertRequest(now, input, plan));
  return { row: requestColumns.map(reserved.before[0]!), reserved };
}

/** The request is written just before its rows are taken: they stay locked from the take to the commit. */
function insertRequest(now: Date, input: NewOutboundRequest, plan: ReservationPlan) {
  return [
    INSERT_REQUEST,
    [
      input.applicantId,
      input.companyName,
      input.outboundType,
      input.status ?? OUTBOUND_STATUS.pending,
      JSON.stringify(plan.lines),
      input.remark?.trim() || null,
      input.sourceReturnId ?? null,
      now.toISOString(),
    ],
  ] as const;
}

const requestColumns = tableColumns(outboundRequests, 'r');

/** Every submission runs it: prepared once per connection instead of built by drizzle per call. */
const INSERT_REQUEST = statement<Record<string, unknown>>(
  'outbound_request_insert',
  `insert into outbound_requests as r
     (applicant_id, company_name, outbound_type, status, items_json, remark, source_return_id, created_at, updated_at)
   values ($1::int, $2::text, $3::text, $4::int, $5::jsonb, $6::text, $7::int, $8::timestamptz, $8::timestamptz)
   returning ${requestColumns.select}`,
);

/**
 * POST /outbound/request (spec 3.2): a new request in status 0, reserved at submission. It belongs to
 * the applicant's company; cross-domain callers name it. Two round trips on PostgreSQL: the candidates
 * are read in the one that opens the transaction and confirms the (cached) actor — a changed actor
 * aborts before anything is written and the route runs again —, the request, the take and the COMMIT
 * go in the second. The answer is built from what the reservation read on the way: no lookup of its own.
 */
export async function submitOutboundRequest(ctx: UseCaseContext, input: SubmitRequestBody): Promise<OutboundRequestView> {
  const items = input.items.map((item) => ({ base_id: item.base_id, quantity: toDecimalString(item.quantity) }));
  const company = await companyBeforeTransaction(ctx, input.company_name);
  const { row, reserved } = await ctx.transaction(async (tx, candidates) => {
    await assertCompanyForRecord(tx, ctx.actor, company);
    const request = { applicantId: ctx.actor.id, companyName: company, outboundType: input.outbound_type, items, remark: input.remark };
    const plan = planFromCandidates(items, candidates);
    const reserved = await takeReservation(tx, plan, insertRequest(ctx.now, request, plan), { commit: true });
    return { row: requestColumns.map(reserved.before[0]!), reserved };
  }, candidatesStatement(company, items));
  return toRequestView(row, { userNames: new Map([[ctx.actor.id, ctx.actor.name]]), materials: reserved.materials, rows: reserved.rows });
}
