import { asc, desc, eq, sql } from 'drizzle-orm';
import { AppError, Decimal, scopeAllows, toQuantity, toQuantityOrZero, type Queryable, type UseCaseContext } from '@wms/platform';
import { SCRAP_STATUS, stockRows, transDefectiveGoods, type ScrapRequestRow } from '../../db/schema/index.js';
import { reservedOnRow } from '../reservation/index.js';
import { readRequest } from '../request-workflow/request-access.js';
import { assertAcceptedByScan, flattenJoined, selectStockRows } from '../stock/stock-rows.js';
import { visibleRequests } from './request-access.js';
import { scrapFlow } from './request-flow.js';
import { isStockSource } from './scrap-modes.js';
import type { ScrapScanQuery, ScrapScanView } from './schemas.js';

/** spec 4.4: without a request, a barcode matching several rows answers the first of this order. */
const FIXED_ORDER = ['stock_product', 'stock_semi', 'stock_buy', 'trans_defective_goods'] as const;

type Candidate = Omit<ScrapScanView, 'in_request' | 'request_scrap_qty' | 'available_quantity'> & { live: string };

/**
 * GET /scrap/scan (spec 4.4): a barcode can name a stock row and ledger entries at once (the ledger
 * copies the sku of the row its goods came from; they are different physical items). With request_id
 * the request's lines decide (the row or entry it names); otherwise, or when it names none of them,
 * the fixed order stock_product, stock_semi, stock_buy, trans_defective_goods (open entries before
 * finished ones, then the oldest). Unknown barcode 404; a barcode only of another company 403
 * OTHER_COMPANY with `company`; the stock row chosen not 在库 400 NOT_IN_STOCK. A stock row's scrappable
 * quantity adds back what this request still reserves on it (while it is open), as the outbound scan does.
 */
export async function scanForScrap(ctx: UseCaseContext, query: ScrapScanQuery): Promise<ScrapScanView> {
  const barcode = query.barcode.trim();
  return ctx.read(async (q) => {
    const request = query.request_id ? await readRequest(q, scrapFlow, query.request_id, visibleRequests(ctx)) : null;
    const candidates = await candidatesOf(q, barcode);
    if (candidates.length === 0) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`, { barcode });
    const scope = ctx.scope();
    // a request's barcode is one of the request's company, also for a cross-domain caller (as the outbound scan)
    const visible = candidates.filter((candidate) => scopeAllows(scope, candidate.company_name) && (!request || candidate.company_name === request.companyName));
    if (visible.length === 0) {
      const company = candidates[0]!.company_name;
      throw new AppError('OTHER_COMPANY', `条码 ${barcode} 属于其他公司（${company}）`, { company, barcode });
    }
    const named = request && visible.find((candidate) => lineOf(request, candidate));
    return viewOf(acceptedByScan(named ?? visible[0]!), request);
  });
}

/** A stock row chosen must be 在库 (the scan rule of every stock scan); a ledger entry has no stock status. */
function acceptedByScan(candidate: Candidate): Candidate {
  if (candidate.source_table !== 'trans_defective_goods') assertAcceptedByScan(candidate.sku, candidate.status, '报废');
  return candidate;
}

/** Every row and ledger entry carrying the barcode, in the fixed order. */
async function candidatesOf(q: Queryable, barcode: string): Promise<Candidate[]> {
  const rows = (await selectStockRows(q).where(eq(stockRows.sku, barcode))).map(flattenJoined);
  const entries = await q
    .select()
    .from(transDefectiveGoods)
    .where(eq(transDefectiveGoods.sku, barcode))
    .orderBy(desc(sql`${transDefectiveGoods.status} = '待处理'`), asc(transDefectiveGoods.id));
  const fromRows: Candidate[] = rows.map((row) => ({
    source_table: row.sourceTable,
    stock_id: row.id,
    sku: row.sku,
    base_id: row.baseId,
    material_name: row.materialName,
    spec_model: row.specModel,
    unit: row.unit,
    company_name: row.companyName,
    status: row.status,
    warehouse_location: row.warehouseLocation,
    stock_quantity: toQuantityOrZero(row.stockQuantity),
    live_available_quantity: toQuantityOrZero(row.availableQuantity),
    remaining_qty: null,
    live: row.availableQuantity,
  }));
  const fromLedger: Candidate[] = entries.map((entry) => ({
    source_table: 'trans_defective_goods',
    stock_id: entry.id,
    sku: entry.sku,
    base_id: entry.baseId,
    material_name: entry.materialName,
    spec_model: entry.specModel,
    unit: '',
    company_name: entry.companyName,
    status: entry.status,
    warehouse_location: null,
    stock_quantity: null,
    live_available_quantity: null,
    remaining_qty: toQuantityOrZero(entry.remainingQty),
    live: entry.remainingQty,
  }));
  const rank = (candidate: Candidate) => FIXED_ORDER.indexOf(candidate.source_table as (typeof FIXED_ORDER)[number]);
  return [...fromRows, ...fromLedger].sort((a, b) => rank(a) - rank(b));
}

const lineOf = (request: ScrapRequestRow, candidate: Candidate) =>
  request.itemsJson.find((line) => line.source_table === candidate.source_table && line.stock_id === candidate.stock_id);

function viewOf(candidate: Candidate, request: ScrapRequestRow | null): ScrapScanView {
  const { live, ...fields } = candidate;
  const line = request ? lineOf(request, candidate) : undefined;
  const open = request !== null && (request.status === SCRAP_STATUS.pending || request.status === SCRAP_STATUS.approved);
  const addBack = line && open && isStockSource(line.source_table) ? reservedOnRow([line], line.stock_id) : new Decimal(0);
  return {
    ...fields,
    available_quantity: toQuantityOrZero(addBack.plus(live).toString()),
    in_request: line !== undefined,
    request_scrap_qty: line ? toQuantity(line.quantity) : null,
  };
}
