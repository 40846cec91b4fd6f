import { Decimal } from '@wms/platform';
import type { StockKind } from '../../db/schema/stock.js';

/**
 * What the shared release needs of any line a request stores (outbound, borrow, scrap): while
 * `reserved` is true, `quantity` of the stock row `stock_id` is held out of its available_quantity.
 * A line that never reserves (a scrap line of a borrow line or a ledger entry) is always false, so
 * its stock_id — an id of another table — is never read as a stock row.
 */
export interface HeldLine {
  stock_id: number;
  quantity: string;
  reserved: boolean;
}

/**
 * One allocated line of a request that holds stock (outbound, borrow, scrap of stock rows). The
 * request's own table stores its lines; `reserved` says whether the line still holds its quantity out
 * of the row's available_quantity. Quantities are decimal strings so a jsonb column keeps them exact.
 */
export interface ReservationLine extends HeldLine {
  base_id: number;
  source_table: StockKind;
}

/** What a caller asks for: a material and a positive quantity (JSON number or decimal string). */
export interface RequestedItem {
  base_id: number;
  quantity: number | string;
}

/** How much the given lines still hold on one stock row (0 when none). */
export function reservedOnRow(lines: readonly HeldLine[], stockId: number): Decimal {
  return lines
    .filter((line) => line.reserved && line.stock_id === stockId)
    .reduce((sum, line) => sum.plus(line.quantity), new Decimal(0));
}

/** The reserved quantity of the given lines per stock row. */
export function reservedPerRow(lines: readonly HeldLine[]): Map<number, Decimal> {
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

/** The requested quantity per stock row, summed over the lines (reserved or not). */
export function quantityPerRow(lines: readonly { stock_id: number; quantity: string | number }[]): Map<number, Decimal> {
  const perRow = new Map<number, Decimal>();
  for (const line of lines) perRow.set(line.stock_id, (perRow.get(line.stock_id) ?? new Decimal(0)).plus(line.quantity));
  return perRow;
}
