import { beijingDate } from '@wms/platform';
import { sql } from 'drizzle-orm';
import type { Tx } from '@wms/platform';

/** The calendar date in Beijing (UTC+8, no daylight saving) as yyyymmdd. */
export function beijingDateDigits(at: Date): string {
  return beijingDate(at).replaceAll('-', '');
}

/** CK<yyyymmdd Beijing><sequence, 6+ digits>: unique across concurrent executions (a database sequence). */
export async function nextOutboundNo(tx: Tx, at: Date): Promise<string> {
  const result = (await tx.execute(sql`select nextval('trans_outbound_no_seq')::text as n`)) as unknown as {
    rows: Array<{ n: string }>;
  };
  const sequence = result.rows[0]!.n;
  return `CK${beijingDateDigits(at)}${sequence.padStart(6, '0')}`;
}
