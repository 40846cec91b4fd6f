import { randomBytes } from 'node:crypto';
import { AppError, type Tx } from '@wms/platform';
import { products, type ProductRow } from '../../db/schema/index.js';

/** Every serial number is exactly this long: SERIAL_PREFIX (empty or one character) + uppercase hex. */
export const SERIAL_LENGTH = 16;
const MAX_DRAWS = 8;

export type SerialDraw = () => string;

/** A random serial: the prefix followed by uppercase hexadecimal digits, 16 characters in all. */
export function randomSerialNumber(prefix: string): string {
  return (prefix + randomBytes(SERIAL_LENGTH).toString('hex').toUpperCase()).slice(0, SERIAL_LENGTH);
}

type NewProduct = Omit<typeof products.$inferInsert, 'id' | 'serialNumber'>;

/**
 * Inserts a product under a freshly drawn serial number. The unique index decides: a serial that
 * already exists writes nothing (ON CONFLICT DO NOTHING keeps the transaction usable) and another is
 * drawn. Eight collisions in a row mean the generator is broken, not unlucky.
 */
export async function insertWithFreshSerial(tx: Tx, values: NewProduct, draw: SerialDraw): Promise<ProductRow> {
  for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
    const [row] = await tx
      .insert(products)
      .values({ ...values, serialNumber: draw() })
      .onConflictDoNothing({ target: products.serialNumber })
      .returning();
    if (row) return row;
  }
  throw new AppError('CONFLICT', '无法生成不重复的序列号，请重试');
}
