import type { Tx } from '@wms/platform';
import type { OutboundType } from '../../db/schema/index.js';
import { enqueueOutboundNotice } from '../notifications/outbound-notice.js';

/** What the tracking service is told about one executed outbound (contract §5; event_id is the outbox's). */
export interface OutboundNotice {
  company_name: string;
  /** The username of the person who scanned (contract §8). */
  operator: string;
  outbound_type: OutboundType;
  outbound_no: string;
  items: Array<{ stock_id: number; sku: string; serial_number: string | null; base_id: number; quantity: string }>;
}

/**
 * Called inside the execution transaction, after the stock is deducted and the lines are written: the
 * outbound message goes into the outbox in the same transaction, so it exists exactly when the outbound
 * does (contract §5). The dispatcher delivers it after commit.
 */
export async function recordOutboundNotification(tx: Tx, notice: OutboundNotice): Promise<void> {
  await enqueueOutboundNotice(tx, notice);
}
