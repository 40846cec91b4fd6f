import { and, asc, desc, eq, gt, inArray } from 'drizzle-orm';
import { AppError, can, companyCondition, notFound, scopeAllows, validationFailed, type Queryable, type UseCaseContext } from '@wms/platform';
import { materials, stockRows, type OutboundRequestRow } from '../../db/schema/index.js';
import { readRequest, requestsInScope } from '../request-workflow/request-access.js';
import { priceVisibilityOf } from '../stock/price-visibility.js';
import type { StockRowView } from '../stock/schemas.js';
import { toStockRowView } from '../stock/stock-mapper.js';
import { assertAcceptedByScan, flattenJoined, selectStockRows } from '../stock/stock-rows.js';
import { addBackFor, withAddBack } from './add-back.js';
import { lookUpScan } from './scan-statement.js';
import { visibleRequests } from './request-access.js';
import { outboundFlow } from './request-flow.js';
import type { AlternativesQuery, BomMatchBody, ScannedRowView, ScanQuery } from './schemas.js';

/** outbound_create:operation: the executors, who scan and execute any request of their company by its id. */
const EXECUTE = 'outbound_create:operation';

/**
 * The request whose reservation the alternatives add back: one the caller may use. Executors use any
 * request of their company scope (they execute it, as the scan and POST /outbound do); everybody else
 * only a request they may see (contract §4 "outbound_approval, or own"), so nobody reads the reservations
 * of a request hidden from them. Anything else is 404, as its detail is.
 */
async function requestOf(q: Queryable, ctx: UseCaseContext, id: number | undefined): Promise<OutboundRequestRow | null> {
  if (id === undefined) return null;
  const usable = can(ctx.actor, EXECUTE) ? requestsInScope(ctx, outboundFlow) : visibleRequests(ctx);
  return readRequest(q, outboundFlow, id, usable);
}

/**
 * GET /outbound/scan: the 在库 row with this exact barcode, its available quantity including what the
 * given request itself holds on it. Unknown 404; another company's (than the caller's, or than the
 * request's) 403 OTHER_COMPANY; not 在库 400 NOT_IN_STOCK.
 */
export async function scanForOutbound(ctx: UseCaseContext, query: ScanQuery): Promise<ScannedRowView> {
  const barcode = query.barcode.trim();
  // blanks only is bad input, not an unknown barcode (as the stock scan and the execution say)
  if (!barcode) throw validationFailed('条码不能为空', { field: 'barcode' });
  const scope = ctx.scope();
  const { request, row } = await ctx.readWithActorVersion(async (q, userId) => {
    const found = await lookUpScan(q, userId, barcode, query.request_id);
    return { actorVersion: found.actorVersion, value: found };
  });
  if (query.request_id !== undefined && (!request || !scopeAllows(scope, request.companyName))) throw notFound(outboundFlow.noun);
  if (!row) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`);
  if (!scopeAllows(scope, row.companyName) || (request && request.companyName !== row.companyName)) {
    throw new AppError('OTHER_COMPANY', `条码 ${barcode} 属于其他公司（${row.companyName}）`, { company: row.companyName });
  }
  assertAcceptedByScan(barcode, row.status, '出库');
  return withAddBack(toStockRowView(row, priceVisibilityOf(ctx.actor)), row.availableQuantity, addBackFor(request, row.id));
}

/**
 * GET /outbound/alternatives: the 在库 rows of one material that can serve the request, with the same
 * add-back as the scan, largest available first; rows with nothing available are left out.
 */
export async function listAlternatives(ctx: UseCaseContext, query: AlternativesQuery): Promise<ScannedRowView[]> {
  const prices = priceVisibilityOf(ctx.actor);
  const { request, rows } = await ctx.read(async (q) => {
    const found = await requestOf(q, ctx, query.request_id);
    const company = companyCondition(ctx.scope(), materials.companyName);
    const [material] = await q
      .select({ id: materials.id, companyName: materials.companyName })
      .from(materials)
      .where(and(eq(materials.id, query.base_id), company));
    if (!material || (found && found.companyName !== material.companyName)) throw notFound('物料');
    const joined = await selectStockRows(q)
      .where(and(eq(stockRows.baseId, material.id), eq(stockRows.status, '在库')))
      .orderBy(asc(stockRows.id));
    return { request: found, rows: joined.map(flattenJoined) };
  });
  return rows
    .map((row) => withAddBack(toStockRowView(row, prices), row.availableQuantity, addBackFor(request, row.id)))
    .filter((view) => view.available_quantity > 0)
    .sort((a, b) => b.available_quantity - a.available_quantity || a.id - b.id);
}

/**
 * POST /outbound/bom-match-stock: every 在库 row with available stock of the given materials in the
 * caller's scope, all three kinds, in one query. Price and cost fields are never included.
 */
export async function matchBomStock(ctx: UseCaseContext, input: BomMatchBody): Promise<StockRowView[]> {
  const ids = [...new Set(input.child_ids)];
  if (ids.length === 0) return [];
  const rows = await ctx.read((q) =>
    selectStockRows(q)
      .where(
        and(
          inArray(stockRows.baseId, ids),
          companyCondition(ctx.scope(input.company), materials.companyName),
          eq(stockRows.status, '在库'),
          gt(stockRows.availableQuantity, '0'),
        ),
      )
      .orderBy(asc(stockRows.baseId), desc(stockRows.availableQuantity), asc(stockRows.id)),
  );
  return rows.map((joined) => toStockRowView(flattenJoined(joined), { unitCost: false, referencePrice: false }));
}
