import { AppError, Decimal, notFound, toDecimalString, toQuantityOrZero, type Tx, type UseCaseContext } from '@wms/platform';
import type { ReasonCategory, ScrapLine } from '../../db/schema/index.js';
import { pendingQuantityOf, quantityExceeds } from '../borrow/line-access.js';
import { readDefectiveForScrap } from '../defective/scrap-request-seam.js';
import { createScrapRequest } from './create-request.js';
import { toScrapRequestViewOf } from './request-views.js';
import type { ScrapRequestView, SubmitScrapBody } from './schemas.js';
import { borrowScrapLine, lockBorrowLinesForScrap } from './submit-borrow-service.js';

type AutoItem = SubmitScrapBody['items'][number];
/** What a request asks of one source: its quantities summed, the first location named. */
type Asked = Map<number, { quantity: Decimal; location: string }>;

/**
 * POST /scrap/request with auto-mode sources (contract §4: `mode (scan or auto)`, items by source_table):
 * borrow lines and ledger entries, checked exactly as their own submissions check them
 * (/borrow/scrap-request, /inbound/stock/defective/<id>/scrap-request), on one request in auto mode.
 * A borrowed line goes whole — scrap_qty must be what is still out (less: 400 SPLIT_REQUIRED, split it
 * first; more: QUANTITY_EXCEEDS); a ledger entry any part of what it holds. Nothing is reserved. The
 * sources decide the company (one for all of them); a company named by a cross-domain caller must be it.
 */
export async function submitAutoScrap(ctx: UseCaseContext, input: SubmitScrapBody): Promise<ScrapRequestView> {
  const borrowItems = merged(input.items.filter((item) => item.source_table === 'trans_borrow'));
  const ledgerItems = merged(input.items.filter((item) => item.source_table === 'trans_defective_goods'));
  return ctx.transaction(async (tx) => {
    const lines = [...(await borrowedLines(ctx, tx, borrowItems)), ...(await ledgerLines(ctx, tx, ledgerItems))];
    const company = oneCompany(lines.map((line) => line.company), input.company_name);
    const created = await createScrapRequest(tx, ctx.now, {
      applicantId: ctx.actor.id,
      companyName: company,
      mode: 'auto',
      reason: input.reason,
      reasonCategory: input.reason_category ?? defaultCategory(borrowItems.size > 0),
      lines: lines.map((line) => line.scrapLine),
      approverIds: input.approver_ids,
      remark: input.remark,
    });
    return toScrapRequestViewOf(tx, created);
  });
}

interface CheckedLine {
  company: string;
  scrapLine: ScrapLine;
}

/** The same source named twice is one line for the sum of its quantities (as stock rows are merged). */
function merged(items: readonly AutoItem[]): Asked {
  const byId: Asked = new Map();
  for (const item of items) {
    const seen = byId.get(item.stock_id);
    const quantity = new Decimal(toDecimalString(item.scrap_qty));
    byId.set(item.stock_id, {
      quantity: seen ? seen.quantity.plus(quantity) : quantity,
      location: seen?.location || item.location?.trim() || '',
    });
  }
  return byId;
}

async function borrowedLines(ctx: UseCaseContext, tx: Tx, items: Asked): Promise<CheckedLine[]> {
  if (items.size === 0) return [];
  const lines = await lockBorrowLinesForScrap(tx, ctx.scope(), [...items.keys()], ctx.now);
  return lines.map((line) => {
    const asked = items.get(line.id)!;
    const out = pendingQuantityOf(line);
    if (asked.quantity.greaterThan(out)) throw quantityExceeds(line, asked.quantity, '报废');
    if (asked.quantity.lessThan(out)) {
      throw new AppError('SPLIT_REQUIRED', `借用物品只能整行报废：借用记录 ${line.id} 未归还数量为 ${out.toString()}，如只报废部分数量，请先拆分该行`, {
        stock_id: line.id,
        pending_quantity: toQuantityOrZero(out.toString()),
      });
    }
    const scrapLine = borrowScrapLine(line);
    return { company: line.companyName, scrapLine: { ...scrapLine, location: asked.location || scrapLine.location } };
  });
}

/** Ledger entries in id order (the lock order of every ledger write). */
async function ledgerLines(ctx: UseCaseContext, tx: Tx, items: Asked): Promise<CheckedLine[]> {
  const checked: CheckedLine[] = [];
  for (const id of [...items.keys()].sort((a, b) => a - b)) {
    const asked = items.get(id)!;
    const quantity = asked.quantity.toString();
    const entry = await readDefectiveForScrap(ctx, tx, id, quantity);
    checked.push({
      company: entry.companyName,
      scrapLine: { source_table: 'trans_defective_goods', stock_id: entry.id, base_id: entry.baseId, quantity, location: asked.location, reserved: false },
    });
  }
  return checked;
}

function oneCompany(companies: readonly string[], named: string | undefined): string {
  const distinct = [...new Set(companies)];
  if (distinct.length > 1) {
    throw new AppError('VALIDATION_FAILED', `同一报废申请的记录必须属于同一公司（涉及 ${distinct.join('、')}）`, { field: 'items' });
  }
  const company = distinct[0]!;
  if (named !== undefined && named.trim() !== company) throw notFound(`公司 ${named.trim()} 的报废来源记录`);
  return company;
}

/** A borrow line's scrap is 借用报废, a held defective item's 不良品报废 (their own submissions' categories). */
const defaultCategory = (anyBorrowed: boolean): ReasonCategory => (anyBorrowed ? '借用报废' : '不良品报废');
