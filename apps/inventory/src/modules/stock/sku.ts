import { randomInt } from 'node:crypto';
import { beijingDate, validationFailed } from '@wms/platform';
import type { StockKind } from '../../db/schema/index.js';

const KIND_PREFIX: Record<StockKind, string> = { stock_buy: 'B', stock_semi: 'S', stock_product: 'P' };
/** No 0/O or 1/I: a generated code is read aloud and typed by hand. */
const ALPHABET = '23456789ABCDEFGHJKLMNPQRSTUVWXYZ';
const RANDOM_LENGTH = 6;

/** A readable, practically unique code: kind prefix, Beijing date, random part, e.g. B20250301-7K3QX2. */
export function generateSku(kind: StockKind, now: Date): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += ALPHABET[randomInt(ALPHABET.length)];
  return `${KIND_PREFIX[kind]}${beijingDate(now).replaceAll('-', '')}-${random}`;
}

/** A sent sku is the scanned barcode: trimmed, never empty, no inner whitespace or control characters. */
export function normalizeSku(sku: string): string {
  const trimmed = sku.trim();
  // eslint-disable-next-line no-control-regex
  if (!trimmed || /[\s\u0000-\u001f\u007f]/.test(trimmed)) {
    throw validationFailed('条码 sku 不能为空，且不能包含空白或控制字符', { field: 'sku' });
  }
  return trimmed;
}
