import { validationFailed } from '@wms/platform';
import type { StockKind } from '../../db/schema/index.js';

/**
 * Fields that exist on some stock kinds only (spec 2.2):
 *   batch_number  stock_buy, stock_semi     (a product row stores none and reads '')
 *   serial_number stock_product
 *   request_id    stock_buy                 (the purchase request the stock-in fulfils)
 * Sending one of them with a value for another kind is 400; an empty string or null means "none".
 * undefined means "not sent" (an update leaves the stored value alone).
 */
export interface KindFields {
  batch_number?: string | null;
  serial_number?: string | null;
  request_id?: number | null;
}

const emptyToNull = (value: string | null | undefined) => (value === undefined ? undefined : value?.trim() || null);

export function checkKindFields(kind: StockKind, input: KindFields): KindFields {
  const batchNumber = emptyToNull(input.batch_number);
  const serialNumber = emptyToNull(input.serial_number);
  if (kind === 'stock_product' && batchNumber) {
    throw validationFailed('成品库存没有批次号，请使用序列号 serial_number', { field: 'batch_number' });
  }
  if (kind !== 'stock_product' && serialNumber) {
    throw validationFailed('只有成品库存有序列号，外购件和半成品请使用批次号 batch_number', { field: 'serial_number' });
  }
  if (kind !== 'stock_buy' && input.request_id != null) {
    throw validationFailed('只有外购件入库可以关联采购申请 request_id', { field: 'request_id' });
  }
  return { batch_number: batchNumber, serial_number: serialNumber, request_id: input.request_id };
}
