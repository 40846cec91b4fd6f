import { eq } from 'drizzle-orm';
import { AppError, createUseCaseContext, notFound, toDecimalString, type Actor, type Database } from '@wms/platform';
import { scrapRequests, transOutbound } from '../../db/schema/index.js';
import { toLedgerEntryView } from '../defective/ledger-mapper.js';
import { toReturnView } from '../returns/return-mapper.js';
import { takeReturnFromOutbound } from '../returns/return-from-outbound-service.js';
import { createScrapRequest } from './create-request.js';
import { toScrapRequestViewOf } from './request-views.js';
import type { ProductionScrapBody, ProductionScrapResult } from './schemas.js';

/** The reason category of every production scrap, and the reason of one reported without a reason. */
const PRODUCTION_SCRAP = '生产报废';

/** The machine actor of the internal interface (contract §8): audited as `system`, no user id, no grants. */
function systemActorOf(company: string): Actor {
  return { id: 0, username: 'system', name: '系统', role: 'SYSTEM', company, grants: new Set() };
}

/**
 * POST /internal/scrap/production (spec 4.4, contract §4, §8), X-API-Key: production reports a unit of
 * an outbound line as scrap. In one transaction, acting as `system` in the line's company: the item is
 * returned from the outbound as defective (the return-from-outbound rules: never more than shipped less
 * earlier returns; is_defective always true, need_reissue always false, neither read from the body),
 * and a scrap request in auto mode (生产报废) is submitted for the held quantity with the track_ref.
 * track_ref is unique: a second report is 409 DUPLICATE and writes nothing. The request's applicant is
 * the outbound line's applicant (the person production drew the goods for), as for a reissue; a line
 * without one is 400 NO_APPLICANT.
 */
export async function submitProductionScrap(database: Database, requestUrl: string, input: ProductionScrapBody): Promise<ProductionScrapResult> {
  const trackRef = input.track_ref.trim();
  const [line] = await database.read((q) =>
    q.select({ companyName: transOutbound.companyName, applicantId: transOutbound.applicantId }).from(transOutbound).where(eq(transOutbound.id, input.outbound_id)),
  );
  if (!line) throw notFound('出库记录');
  if (line.applicantId === null) {
    throw new AppError('NO_APPLICANT', '原出库记录没有申请人，无法确定报废申请人', { field: 'outbound_id' });
  }
  const applicantId = line.applicantId;
  const ctx = createUseCaseContext(database, systemActorOf(line.companyName), requestUrl);

  return ctx.transaction(async (tx) => {
    const [taken] = await tx.select({ id: scrapRequests.id }).from(scrapRequests).where(eq(scrapRequests.trackRef, trackRef));
    if (taken) throw new AppError('DUPLICATE', `追踪号 ${trackRef} 已提交过报废（报废申请 ${taken.id}）`, { field: 'track_ref', request_id: taken.id });

    const quantity = toDecimalString(input.quantity);
    const reason = input.reason ?? PRODUCTION_SCRAP;
    const { returned, ledgerEntry } = await takeReturnFromOutbound(tx, ctx, {
      outbound_id: input.outbound_id,
      return_type: 'defective' as never, // ReturnTypeSchema is typed never (a union built from an array)
      quantity: input.quantity,
      reason,
      need_reissue: false,
    });
    const entry = ledgerEntry!;
    const request = await createScrapRequest(tx, ctx.now, {
      applicantId,
      companyName: entry.companyName,
      mode: 'auto',
      reason,
      reasonCategory: PRODUCTION_SCRAP,
      lines: [{ source_table: 'trans_defective_goods', stock_id: entry.id, base_id: entry.baseId, quantity, location: '', reserved: false }],
      approverIds: undefined,
      trackRef,
    });
    return { return: toReturnView(returned), ledger_entry: toLedgerEntryView(entry), scrap_request: await toScrapRequestViewOf(tx, request) };
  });
}
