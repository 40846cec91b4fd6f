import { sql } from 'drizzle-orm';
import type { Tx } from '@wms/platform';

const BEIJING_OFFSET_MS = 8 * 3600 * 1000;

/** The calendar date in Beijing (UTC+8, no daylight saving) as yyyymmdd. */
export function beijingDateDigits(at: Date): string {
  return new Date(at.getTime() + BEIJING_OFFSET_MS).toISOString().slice(0, 10).replaceAll('-', '');
}

/** CK<yyyymmdd Beijing><sequence, 6+ digits>: unique across concurrent executions (a database sequence). */
export async function nextOutboundNo(tx: Tx, at: Date): Promise<string> {
  const result = (await tx.execute(sql`select nextval('trans_outbound_no_seq')::text as n`)) as unknown as {
    rows: Array<{ n: string }>;
  };
  const sequence = result.rows[0]!.n;
  return `CK${beijingDateDigits(at)}${sequence.padStart(6, '0')}`;
}
