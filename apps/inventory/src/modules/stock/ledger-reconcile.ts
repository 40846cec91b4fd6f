import { sql } from 'drizzle-orm';
import { companyCondition, Decimal, queryRows, toQuantityOrZero, type CompanyScope, type Database, type Queryable, type UseCaseContext } from '@wms/platform';
import type { FastifyBaseLogger } from 'fastify';
import { BORROW_STATUS, materials, OUTBOUND_STATUS, SCRAP_STATUS, STOCK_KINDS } from '../../db/schema/index.js';
import type { LedgerReconcileReport } from './schemas.js';

/** How often the background job checks the ledger identity. */
export const LEDGER_RECONCILE_INTERVAL_MS = 60 * 60_000;

/** The reserving statuses of each stock-holding request (contract §4: 0 pending, 1 approved). */
const OPEN_OUTBOUND = sql.raw(`${OUTBOUND_STATUS.pending}, ${OUTBOUND_STATUS.approved}`);
const OPEN_BORROW = sql.raw(`${BORROW_STATUS.pending}, ${BORROW_STATUS.approved}`);
const OPEN_SCRAP = sql.raw(`${SCRAP_STATUS.pending}, ${SCRAP_STATUS.approved}`);
const STOCK_SOURCES = sql.raw(STOCK_KINDS.map((kind) => `'${kind}'`).join(', '));

/**
 * Every request line that claims a reservation (`reserved`), with whether it may: its request is open
 * (status 0 or 1), and a scrap line only when it names a stock row (borrow and ledger lines never reserve).
 */
const CLAIMED_LINES = sql`
  select 'outbound' as biz_type, r.id, line, r.status in (${OPEN_OUTBOUND}) as holds
    from outbound_requests r cross join lateral jsonb_array_elements(r.items_json) line where (line->>'reserved')::boolean
  union all
  select 'borrow', r.id, line, r.status in (${OPEN_BORROW})
    from borrow_requests r cross join lateral jsonb_array_elements(r.items_json) line where (line->>'reserved')::boolean
  union all
  select 'scrap', r.id, line, r.status in (${OPEN_SCRAP}) and line->>'source_table' in (${STOCK_SOURCES})
    from scrap_requests r cross join lateral jsonb_array_elements(r.items_json) line where (line->>'reserved')::boolean`;

/**
 * What holds stock out of a row's available quantity (contract §8 "Stock"), as (stock_id, quantity): the
 * claimed lines that hold, and borrowed, not returned quantity.
 */
const OPEN_HOLDS = sql`
  select (line->>'stock_id')::int as stock_id, (line->>'quantity')::numeric as quantity from claimed where holds
  union all
  select b.stock_id, b.quantity - b.returned_quantity from trans_borrow b where b.status = 'borrowed'`;

/** Requests that still claim a reservation although they no longer hold one (a leak). */
const STALE_RESERVATIONS = sql`select distinct biz_type, id from claimed where not holds`;

interface MismatchRecord {
  id: number;
  sku: string;
  source_table: string;
  base_id: number;
  company_name: string;
  status: string;
  stock_quantity: string;
  available_quantity: string;
  held: string;
}

/**
 * The ledger identity of contract §8, checked for every stock row of the scope: available_quantity =
 * stock_quantity − open reservations − borrowed and not returned. Rows that differ and requests that
 * claim a reservation they no longer hold are listed; nothing is written.
 */
export async function reconcileStockLedger(q: Queryable, scope: CompanyScope, now: Date): Promise<LedgerReconcileReport> {
  const inScope = companyCondition(scope, materials.companyName) ?? sql`true`;
  const mismatches = await queryRows<MismatchRecord>(q, sql`
    with claimed as (${CLAIMED_LINES}),
         held as (select stock_id, sum(quantity) as quantity from (${OPEN_HOLDS}) holds group by stock_id)
    select s.id, s.sku, s.source_table, s.base_id, ${materials.companyName} as company_name, s.status,
           s.stock_quantity::text as stock_quantity, s.available_quantity::text as available_quantity,
           coalesce(h.quantity, 0)::text as held
      from stock_rows s
      join ${materials} on ${materials.id} = s.base_id
      left join held h on h.stock_id = s.id
     where ${inScope} and s.available_quantity <> s.stock_quantity - coalesce(h.quantity, 0)
     order by s.id`);
  // A stale claim is a leak whatever company it is of: only a global check lists it.
  const stale = scope.kind === 'all'
    ? await queryRows<{ biz_type: string; id: number }>(q, sql`with claimed as (${CLAIMED_LINES}) ${STALE_RESERVATIONS} order by biz_type, id`)
    : [];
  const rows = mismatches.map((row) => ({
    id: row.id,
    sku: row.sku,
    source_table: row.source_table,
    base_id: row.base_id,
    company_name: row.company_name,
    status: row.status,
    stock_quantity: toQuantityOrZero(row.stock_quantity),
    available_quantity: toQuantityOrZero(row.available_quantity),
    held_quantity: toQuantityOrZero(row.held),
    expected_available_quantity: new Decimal(row.stock_quantity).minus(row.held).toNumber(),
  }));
  return { checked_at: now.toISOString(), ok: rows.length === 0 && stale.length === 0, mismatches: rows, stale_reservations: stale };
}

/** GET /inbound/stock/reconcile: the check run now, in the caller's scope (`company` narrows for cross-domain callers). */
export function reconcileStockLedgerNow(ctx: UseCaseContext, company?: string): Promise<LedgerReconcileReport> {
  return ctx.read((q) => reconcileStockLedger(q, ctx.scope(company), ctx.now));
}

/**
 * The reconcile job (contract §8): once the app is ready, the whole ledger is checked every
 * LEDGER_RECONCILE_INTERVAL_MS; a broken identity is logged as an error naming the rows. The timer never
 * keeps the process alive and stops when the app closes.
 */
export function installLedgerReconcileJob(
  app: { addHook(name: 'onReady' | 'onClose', hook: () => Promise<void>): unknown; log: FastifyBaseLogger },
  database: Database,
  intervalMs = LEDGER_RECONCILE_INTERVAL_MS,
): void {
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    timer = setInterval(() => void reconcileAndLog(database, app.log), intervalMs);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
  });
}

/** One run of the job over every company: a broken identity is logged as an error; answers the report. */
export async function reconcileAndLog(database: Database, log: Pick<FastifyBaseLogger, 'error' | 'warn'>): Promise<LedgerReconcileReport | undefined> {
  try {
    const report = await database.read((q) => reconcileStockLedger(q, { kind: 'all' }, new Date()));
    if (!report.ok) {
      log.error(
        { mismatches: report.mismatches, stale_reservations: report.stale_reservations },
        `[ledger] 库存账不平：${report.mismatches.length} 行可用数量 ≠ 库存 − 预留 − 借出，${report.stale_reservations.length} 个已结束的申请仍占用预留`,
      );
    }
    return report;
  } catch (error) {
    log.warn({ err: error }, '[ledger] 库存对账失败');
    return undefined;
  }
}
