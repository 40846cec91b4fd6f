import { toQuantityOrZero, type Tx } from '@wms/platform';
import type { OutboundType } from '../../db/schema/index.js';
import { enqueueNotification } from './outbox.js';

/** One executed outbound as the execution knows it; quantities are decimal strings. */
export interface ExecutedOutbound {
  company_name: string;
  /** The username of the person who scanned (contract §8). */
  operator: string;
  outbound_type: OutboundType;
  outbound_no: string;
  items: ReadonlyArray<{ stock_id: number; sku: string; serial_number: string | null; quantity: string }>;
}

/** The outbound message (contract §5): exactly the named fields, quantities as JSON numbers. */
export function outboundPayload(outbound: ExecutedOutbound): Record<string, unknown> {
  return {
    company_name: outbound.company_name,
    operator: outbound.operator,
    outbound_type: outbound.outbound_type,
    outbound_no: outbound.outbound_no,
    items: outbound.items.map((item) => ({
      stock_id: item.stock_id,
      sku: item.sku,
      serial_number: item.serial_number,
      quantity: toQuantityOrZero(item.quantity),
    })),
  };
}

export function enqueueOutboundNotice(tx: Tx, outbound: ExecutedOutbound): Promise<string> {
  return enqueueNotification(tx, 'outbound', outboundPayload(outbound));
}
