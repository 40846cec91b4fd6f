import { eq } from 'drizzle-orm';
import { AppError, validationFailed, type Tx, type UseCaseContext } from '@wms/platform';
import { purchaseRequests } from '../../db/schema/index.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { movePurchase } from './purchase-status.js';

/** What a stock-in tells about itself when it names a purchase request. */
export interface StockInOfRequest {
  requestId: number;
  baseId: number;
  companyName: string;
}

/**
 * Inside the stock-in transaction of a stock_buy row naming request_id (spec 3.6, 4.2): the approved
 * request becomes 3 已完成 and leaves the approved-unstocked list and the in-transit quantity. Refusals
 * (the stock-in is rolled back with them): a request that is unknown or of another company than the row
 * (404, contract §3: another company's id is 404, field request_id), of another material (400
 * VALIDATION_FAILED), or not approved (400 STATUS_NOT_ALLOWED with `status`). The quantity stocked in
 * may differ from the one requested (a short delivery still completes the request); the supply may fall
 * by the difference, so the low-stock check runs after the commit.
 */
export async function completePurchaseByStockIn(ctx: UseCaseContext, tx: Tx, stockIn: StockInOfRequest): Promise<void> {
  const [request] = await tx.select().from(purchaseRequests).where(eq(purchaseRequests.id, stockIn.requestId)).for('update');
  if (!request || request.companyName !== stockIn.companyName) {
    throw new AppError('NOT_FOUND', `采购申请 ${stockIn.requestId} 不存在或不属于 ${stockIn.companyName}`, { field: 'request_id' });
  }
  if (request.baseId !== stockIn.baseId) {
    throw validationFailed(`采购申请 ${request.requestNo} 采购的是物料 ${request.baseId}，不是本次入库的物料 ${stockIn.baseId}`, {
      field: 'request_id',
    });
  }
  try {
    await movePurchase(tx, request, 'complete', { completedAt: ctx.now }, ctx.now);
  } catch (err) {
    if (err instanceof AppError) throw new AppError(err.code, err.message, { ...err.extras, field: 'request_id' });
    throw err;
  }
  await scheduleLowStockCheck(ctx, tx, request.companyName, [request.baseId]);
}
