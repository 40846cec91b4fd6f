import { AppError, type Decimal, type Tx, type UseCaseContext } from '@wms/platform';
import { transScrap, type ScrapLine, type ScrapRequestRow } from '../../db/schema/index.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { lockRequest, requestsInScope } from '../request-workflow/request-access.js';
import { assertMayMove, moveRequest } from '../request-workflow/transitions.js';
import { sumPerBarcode } from '../scan-execution/scanned-lines.js';
import { scrapAuto } from './execute-auto.js';
import { scrapScanned } from './execute-scanned.js';
import { scrapFlow } from './request-flow.js';
import type { ExecuteScrapBody, ScrapRequestView } from './schemas.js';
import { scrapRecordOf } from './scrapped-units.js';

/**
 * POST /scrap/request/:id/execute (spec 2.8, 3.4, 3.8; contract §4, §8): executes an approved request
 * once. The request is locked first, so parallel executions of one request run one after the other and
 * the second finds it executed (400 STATUS_NOT_ALLOWED): stock is deducted once. Scan mode takes the
 * scanned quantities off the named stock rows; auto mode scraps each borrow line and ledger quantity as
 * approved. One scrap record per unit with cost_at_scrap and total_loss; the request moves to 3. The
 * low-stock check runs after the commit for the materials whose stock fell.
 */
export async function executeScrap(ctx: UseCaseContext, id: number, input: ExecuteScrapBody): Promise<ScrapRequestView> {
  const scans = input.scans ? sumPerBarcode(input.scans) : null;
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, scrapFlow, id, requestsInScope(ctx, scrapFlow));
    assertMayMove(scrapFlow, request, 'execute');
    const done = request.mode === 'scan' ? await scrapScanned(tx, request, scansOf(request, scans)) : await scrapApproved(tx, request, scans, ctx.now);
    await tx.insert(transScrap).values(done.units.map((unit) => scrapRecordOf(ctx, request, unit)));
    const moved = await moveRequest(tx, scrapFlow, request, 'execute', { itemsJson: done.lines, executorId: ctx.actor.id, executedAt: ctx.now }, ctx.now);
    await scheduleLowStockCheck(ctx, tx, request.companyName, done.lowered);
    return scrapFlow.toViewOf(tx, moved);
  });
}

/** Scan mode is executed by scanning: without scans it is 400. */
function scansOf(request: ScrapRequestRow, scans: Map<string, Decimal> | null): Map<string, Decimal> {
  if (!scans) throw new AppError('VALIDATION_FAILED', `报废申请 ${request.id} 为扫码模式，请扫码执行（scans）`, { field: 'scans' });
  return scans;
}

/** Auto mode is executed by the approved quantities: scans are 400, never silently ignored. Its lines reserve nothing. */
async function scrapApproved(tx: Tx, request: ScrapRequestRow, scans: Map<string, Decimal> | null, now: Date) {
  if (scans) throw new AppError('VALIDATION_FAILED', '自动模式的报废申请按审批数量执行，不接受扫码（scans）', { field: 'scans' });
  const lines: ScrapLine[] = request.itemsJson;
  return { ...(await scrapAuto(tx, request, now)), lines };
}
