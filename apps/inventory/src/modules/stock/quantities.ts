import { Decimal } from '@wms/platform';
import type { StockRow } from '../../db/schema/index.js';

/**
 * What a row holds back from allocation: open reservations plus borrowed-and-not-returned quantity
 * (contract §8 ledger identity: available = stock − reservations − borrowed).
 */
export function heldQuantityOf(row: Pick<StockRow, 'stockQuantity' | 'availableQuantity'>): Decimal {
  return new Decimal(row.stockQuantity).minus(row.availableQuantity);
}

/** Quantities in messages read like the JSON answer: 3, not 3.000. */
export const quantityText = (value: Decimal.Value) => new Decimal(value).toString();
