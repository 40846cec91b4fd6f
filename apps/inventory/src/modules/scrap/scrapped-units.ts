import { Decimal, type UseCaseContext } from '@wms/platform';
import type { ScrapRequestRow, ScrapSource, transScrap } from '../../db/schema/index.js';

/** One unit an execution takes off the books, with what its cost is read from. */
export interface ScrappedUnit {
  sourceTable: ScrapSource;
  /** The stock row's, borrow line's or ledger entry's id, as sourceTable says. */
  stockId: number;
  baseId: number;
  sku: string;
  materialName: string;
  specModel: string;
  unit: string;
  quantity: string;
  location: string;
  /** The row's unit_cost and the material's referencePrice at execution (either may be missing). */
  unitCost: string | null;
  referencePrice: string | null;
}

/** contract §8: the row's unit_cost, else the material's referencePrice, else 0. */
export const costAtScrap = (unit: Pick<ScrappedUnit, 'unitCost' | 'referencePrice'>) => new Decimal(unit.unitCost ?? unit.referencePrice ?? 0);

/** total_loss = cost × quantity, rounded half up to cents (the column's scale). */
export const totalLossOf = (cost: Decimal, quantity: string) => cost.times(quantity).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);

/** The scrap record (spec 2.8 TransScrap) of one unit of an executed request: snapshots, cost and loss. */
export function scrapRecordOf(ctx: UseCaseContext, request: ScrapRequestRow, unit: ScrappedUnit): typeof transScrap.$inferInsert {
  const cost = costAtScrap(unit);
  return {
    requestId: request.id,
    sourceTable: unit.sourceTable,
    stockId: unit.stockId,
    baseId: unit.baseId,
    sku: unit.sku,
    materialName: unit.materialName,
    specModel: unit.specModel,
    unit: unit.unit,
    quantity: unit.quantity,
    costAtScrap: cost.toFixed(2),
    totalLoss: totalLossOf(cost, unit.quantity).toFixed(2),
    reason: request.reason,
    reasonCategory: request.reasonCategory,
    trackRef: request.trackRef,
    location: unit.location,
    applicantId: request.applicantId,
    operator: ctx.actor.username,
    operatorId: ctx.actor.id,
    companyName: request.companyName,
    scrappedAt: ctx.now,
  };
}
