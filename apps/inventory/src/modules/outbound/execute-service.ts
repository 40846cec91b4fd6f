import type { UseCaseContext } from '@wms/platform';
import { transOutbound } from '../../db/schema/index.js';
import { announceOutboxMessages } from '../notifications/outbox-signal.js';
import { lockRequest, requestsInScope } from '../request-workflow/request-access.js';
import { assertMayMove, moveRequest } from '../request-workflow/transitions.js';
import { rowSnapshotOf } from '../scan-execution/row-snapshot.js';
import { sumPerBarcode } from '../scan-execution/scanned-lines.js';
import { takeScannedLines, type ScanExecution } from '../scan-execution/take-scanned.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { recordOutboundNotification } from './notification-seam.js';
import { toOutboundLineView } from './outbound-line-mapper.js';
import { nextOutboundNo } from './outbound-no.js';
import { outboundFlow } from './request-flow.js';
import type { ExecuteBody, ExecutionResult } from './schemas.js';

/** An outbound execution deducts what was scanned: stock and available fall. */
const OUTBOUND_SCAN: ScanExecution = { verb: '出库', noun: '出库申请', taking: 'deduct' };

/**
 * POST /outbound (spec 3.2, contract §8 "Outbound and borrow execution"): executes an approved request
 * once, by scan. Locks the request, then every involved stock row in ascending id order; releases the
 * request's whole reservation, deducts what was scanned (any 在库 row of a requested material may stand
 * in for the allocated one), writes one trans_outbound line per scanned row under a new outbound_no,
 * and moves the request to 3. What was reserved and not scanned stays released.
 */
export async function executeOutbound(ctx: UseCaseContext, input: ExecuteBody): Promise<ExecutionResult> {
  const scans = sumPerBarcode(input.lines);
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, outboundFlow, input.request_id, requestsInScope(ctx, outboundFlow));
    assertMayMove(outboundFlow, request, 'execute');
    const { picks, released } = await takeScannedLines(tx, request, scans, OUTBOUND_SCAN);

    const outboundNo = await nextOutboundNo(tx, ctx.now);
    const inserted = await tx
      .insert(transOutbound)
      .values(
        picks.map(({ row, quantity }) => ({
          outboundNo,
          requestId: request.id,
          applicantId: request.applicantId,
          consumerName: input.consumer_name?.trim() ?? '',
          outboundType: request.outboundType,
          outboundTime: ctx.now,
          ...rowSnapshotOf(row),
          batchNumber: row.batchNumber,
          serialNumber: row.serialNumber,
          quantity: quantity.toString(),
          warehouseLocation: row.warehouseLocation,
          operator: ctx.actor.username,
          operatorId: ctx.actor.id,
          companyName: request.companyName,
        })),
      )
      .returning();
    const lines = inserted.sort((a, b) => a.id - b.id);
    await moveRequest(tx, outboundFlow, request, 'execute', { itemsJson: released, executedAt: ctx.now }, ctx.now);

    await recordOutboundNotification(tx, {
      company_name: request.companyName,
      operator: ctx.actor.username,
      outbound_type: request.outboundType,
      outbound_no: outboundNo,
      items: lines.map((line) => ({
        stock_id: line.stockId,
        sku: line.sku,
        serial_number: line.serialNumber,
        base_id: line.baseId,
        quantity: line.quantity,
      })),
    });
    ctx.afterCommit(announceOutboxMessages);
    await scheduleLowStockCheck(ctx, tx, request.companyName, lines.map((line) => line.baseId));

    return {
      outbound_no: outboundNo,
      request_id: request.id,
      outbound_time: ctx.now.toISOString(),
      lines: lines.map(toOutboundLineView),
    };
  });
}
