import { Decimal } from '@wms/platform';
import type { StockKind } from '../../db/schema/stock.js';

/**
 * One allocated line of a request that holds stock (outbound, borrow, scrap). The request's own table
 * stores its lines; `reserved` says whether the line still holds its quantity out of the row's
 * available_quantity. Quantities are decimal strings so a jsonb column keeps them exact.
 */
export interface ReservationLine {
  base_id: number;
  quantity: string;
  stock_id: number;
  source_table: StockKind;
  reserved: boolean;
}

/** What a caller asks for: a material and a positive quantity (JSON number or decimal string). */
export interface RequestedItem {
  base_id: number;
  quantity: number | string;
}

/** How much the given lines still hold on one stock row (0 when none). */
export function reservedOnRow(lines: readonly ReservationLine[], stockId: number): Decimal {
  return lines
    .filter((line) => line.reserved && line.stock_id === stockId)
    .reduce((sum, line) => sum.plus(line.quantity), new Decimal(0));
}

/** The reserved quantity of the given lines per stock row. */
export function reservedPerRow(lines: readonly ReservationLine[]): Map<number, Decimal> {
  const perRow = new Map<number, Decimal>();
  for (const line of lines) {
    if (!line.reserved) continue;
    perRow.set(line.stock_id, (perRow.get(line.stock_id) ?? new Decimal(0)).plus(line.quantity));
  }
  return perRow;
}

/** The requested quantity per material, summed over the lines (reserved or not). */
export function quantityPerMaterial(lines: readonly { base_id: number; quantity: string | number }[]): Map<number, Decimal> {
  const perMaterial = new Map<number, Decimal>();
  for (const line of lines) {
    perMaterial.set(line.base_id, (perMaterial.get(line.base_id) ?? new Decimal(0)).plus(line.quantity));
  }
  return perMaterial;
}
