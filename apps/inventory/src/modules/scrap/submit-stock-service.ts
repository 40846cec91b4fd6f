import { toDecimalString, type CompanyScope, type UseCaseContext } from '@wms/platform';
import type { ScrapLine } from '../../db/schema/index.js';
import { companyForCreate } from '../identity/company-rules.js';
import { reserveRows } from '../reservation/index.js';
import { createScrapRequest } from './create-request.js';
import { toScrapRequestViewOf } from './request-views.js';
import { isStockSource, singleModeOf } from './scrap-modes.js';
import type { ScrapRequestView, SubmitScrapBody } from './schemas.js';
import { submitAutoScrap } from './submit-auto-service.js';

/**
 * POST /scrap/request (spec 2.8, contract §4, §8): one request, one mode, decided by the sources — stock
 * rows are scanned at execution, borrow lines and ledger entries are executed by their approved quantity
 * (submit-auto-service). Sources of both modes, or a named mode other than theirs, are 400
 * MIXED_SCRAP_MODES before anything else is checked.
 */
export function submitScrapRequest(ctx: UseCaseContext, input: SubmitScrapBody): Promise<ScrapRequestView> {
  const mode = singleModeOf(input.items.map((item) => item.source_table), input.mode);
  return mode === 'auto' ? submitAutoScrap(ctx, input) : submitStockScrap(ctx, input);
}

/**
 * Stock rows in scan mode, the named rows reserved at submission exactly like an outbound request's lines
 * (released on reject, withdrawal or execution). The request belongs to the rows' company: the caller's,
 * or for a cross-domain caller the one it names (contract §3: 400 COMPANY_REQUIRED without it).
 */
async function submitStockScrap(ctx: UseCaseContext, input: SubmitScrapBody): Promise<ScrapRequestView> {
  const claims = input.items.flatMap((item) =>
    isStockSource(item.source_table) ? [{ stock_id: item.stock_id, source_table: item.source_table, quantity: toDecimalString(item.scrap_qty) }] : [],
  );
  const locations = new Map<number, string>(); // per row: the first location named
  for (const item of input.items) if (!locations.get(item.stock_id)) locations.set(item.stock_id, item.location?.trim() ?? '');

  const created = await ctx.transaction(async (tx) => {
    const { company, lines } = await reserveRows(tx, creationScope(ctx, input.company_name), claims);
    const scrapLines: ScrapLine[] = lines.map((line) => ({
      source_table: line.source_table,
      stock_id: line.stock_id,
      base_id: line.base_id,
      quantity: line.quantity,
      location: locations.get(line.stock_id) ?? '',
      reserved: line.reserved,
    }));
    return createScrapRequest(tx, ctx.now, {
      applicantId: ctx.actor.id,
      companyName: company,
      mode: 'scan',
      reason: input.reason,
      reasonCategory: input.reason_category ?? '库存报废',
      lines: scrapLines,
      approverIds: input.approver_ids,
      remark: input.remark,
    });
  });
  // Built after the commit: the reserved rows stay locked until then, and naming them needs no lock.
  return ctx.read((q) => toScrapRequestViewOf(q, created));
}

/** Where the rows must be: the company the request is created for (companyForCreate: named by a cross-domain caller). */
function creationScope(ctx: UseCaseContext, named: string | undefined): CompanyScope {
  companyForCreate(ctx.actor, named);
  return ctx.scope(named);
}
