import { and, asc, eq, gte, inArray, sql } from 'drizzle-orm';
import { AppError, Decimal, toQuantityOrZero, type Tx, type UseCaseContext } from '@wms/platform';
import { stockRows, transOutbound, type OutboundRequestRow } from '../../db/schema/index.js';
import { quantityPerMaterial, releaseReservation, reservedOnRow } from '../reservation/index.js';
import { flattenJoined, selectStockRows, type StockRowWithMaterial } from '../stock/stock-rows.js';
import { checkLowStockAfterOutbound } from './low-stock-seam.js';
import { recordOutboundNotification } from './notification-seam.js';
import { announceOutboxMessages } from '../notifications/outbox-signal.js';
import { toOutboundLineView } from './outbound-line-mapper.js';
import { nextOutboundNo } from './outbound-no.js';
import { lockRequest, requestsInScope } from './request-access.js';
import { assertMayMove, moveRequest } from './transitions.js';
import type { ExecuteBody, ExecutionResult } from './schemas.js';

/** One scanned row and the quantity taken from it (several scans of one barcode are summed). */
interface Pick {
  row: StockRowWithMaterial;
  quantity: Decimal;
}

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
    const request = await lockRequest(tx, input.request_id, requestsInScope(ctx));
    assertMayMove(request, 'execute');
    const scannedIds = await resolveBarcodes(tx, request, [...scans.keys()]);
    const reservedIds = request.itemsJson.filter((line) => line.reserved).map((line) => line.stock_id);
    const locked = await lockRowsInIdOrder(tx, [...scannedIds.values(), ...reservedIds]);
    const picks = checkPicks(request, scans, scannedIds, locked);

    const released = await releaseReservation(tx, request.itemsJson);
    for (const pick of picks) await deduct(tx, pick, request);

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
          stockId: row.id,
          sourceTable: row.sourceTable,
          baseId: row.baseId,
          sku: row.sku,
          materialName: row.materialName,
          specModel: row.specModel,
          unit: row.unit,
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
    await moveRequest(tx, request, 'execute', { itemsJson: released, executedAt: ctx.now }, ctx.now);

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
    const baseIds = [...new Set(lines.map((line) => line.baseId))];
    ctx.afterCommit(() => checkLowStockAfterOutbound(ctx, request.companyName, baseIds));

    return {
      outbound_no: outboundNo,
      request_id: request.id,
      outbound_time: ctx.now.toISOString(),
      lines: lines.map(toOutboundLineView),
    };
  });
}

function sumPerBarcode(lines: ExecuteBody['lines']): Map<string, Decimal> {
  const perBarcode = new Map<string, Decimal>();
  for (const line of lines) {
    const barcode = line.barcode.trim();
    if (!barcode) throw new AppError('VALIDATION_FAILED', '条码不能为空', { field: 'lines.barcode' });
    perBarcode.set(barcode, (perBarcode.get(barcode) ?? new Decimal(0)).plus(line.quantity));
  }
  return perBarcode;
}

/** Barcode → stock row id. Unknown barcode 404; a row of another company than the request's 403. */
async function resolveBarcodes(tx: Tx, request: OutboundRequestRow, barcodes: string[]): Promise<Map<string, number>> {
  const rows = (await selectStockRows(tx).where(inArray(stockRows.sku, barcodes))).map(flattenJoined);
  const bySku = new Map(rows.map((row) => [row.sku, row]));
  const ids = new Map<string, number>();
  for (const barcode of barcodes) {
    const row = bySku.get(barcode);
    if (!row) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`, { barcode });
    if (row.companyName !== request.companyName) {
      throw new AppError('OTHER_COMPANY', `条码 ${barcode} 属于其他公司（${row.companyName}）`, { company: row.companyName, barcode });
    }
    ids.set(barcode, row.id);
  }
  return ids;
}

async function lockRowsInIdOrder(tx: Tx, ids: number[]): Promise<Map<number, StockRowWithMaterial>> {
  const unique = [...new Set(ids)];
  const rows = await selectStockRows(tx)
    .where(inArray(stockRows.id, unique))
    .orderBy(asc(stockRows.id))
    .for('update', { of: stockRows });
  return new Map(rows.map((joined) => [joined.row.id, flattenJoined(joined)]));
}

/** Every scanned row 在库 and of a requested material; per material, no more than requested. */
function checkPicks(
  request: OutboundRequestRow,
  scans: Map<string, Decimal>,
  scannedIds: Map<string, number>,
  locked: Map<number, StockRowWithMaterial>,
): Pick[] {
  const requested = quantityPerMaterial(request.itemsJson);
  const scannedPerMaterial = new Map<number, Decimal>();
  const picks: Pick[] = [];
  for (const [barcode, quantity] of scans) {
    const row = locked.get(scannedIds.get(barcode)!);
    if (!row) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`, { barcode });
    if (row.status !== '在库') {
      throw new AppError('NOT_IN_STOCK', `条码 ${barcode} 的库存状态为「${row.status}」，不能出库`, { barcode, status: row.status });
    }
    if (!requested.has(row.baseId)) {
      throw new AppError('VALIDATION_FAILED', `条码 ${barcode} 的物料「${row.materialName}」不在该出库申请中`, {
        barcode,
        base_id: row.baseId,
      });
    }
    scannedPerMaterial.set(row.baseId, (scannedPerMaterial.get(row.baseId) ?? new Decimal(0)).plus(quantity));
    picks.push({ row, quantity });
  }
  for (const [baseId, scanned] of scannedPerMaterial) {
    const wanted = requested.get(baseId)!;
    if (scanned.greaterThan(wanted)) {
      const name = picks.find((pick) => pick.row.baseId === baseId)!.row.materialName;
      throw new AppError('QUANTITY_EXCEEDS', `物料「${name}」扫描数量 ${scanned.toString()} 超过申请数量 ${wanted.toString()}`, {
        base_id: baseId,
        requested: toQuantityOrZero(wanted.toString()),
        scanned: toQuantityOrZero(scanned.toString()),
      });
    }
  }
  return picks.sort((a, b) => a.row.id - b.row.id);
}

/** Takes the scanned quantity off the row (physical and available); a row's available never goes negative. */
async function deduct(tx: Tx, pick: Pick, request: OutboundRequestRow): Promise<void> {
  const quantity = pick.quantity.toString();
  const updated = await tx
    .update(stockRows)
    .set({
      stockQuantity: sql`${stockRows.stockQuantity} - ${quantity}::numeric`,
      availableQuantity: sql`${stockRows.availableQuantity} - ${quantity}::numeric`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(stockRows.id, pick.row.id), gte(stockRows.availableQuantity, quantity)))
    .returning({ id: stockRows.id });
  if (updated.length === 0) {
    const available = reservedOnRow(request.itemsJson, pick.row.id).plus(pick.row.availableQuantity);
    throw new AppError(
      'STOCK_SHORTAGE',
      `条码 ${pick.row.sku} 可用数量不足：需要 ${pick.quantity.toString()}，可用 ${available.toString()}`,
      { barcode: pick.row.sku, needed: toQuantityOrZero(quantity), remaining: toQuantityOrZero(available.toString()) },
    );
  }
}
