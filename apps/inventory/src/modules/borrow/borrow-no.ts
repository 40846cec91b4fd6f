import { sql } from 'drizzle-orm';
import type { Tx } from '@wms/platform';
import { beijingDateDigits } from '../outbound/outbound-no.js';

/** JY<yyyymmdd Beijing><sequence, 6+ digits>: unique across concurrent dispatches (a database sequence). */
export async function nextBorrowNo(tx: Tx, at: Date): Promise<string> {
  const result = (await tx.execute(sql`select nextval('trans_borrow_no_seq')::text as n`)) as unknown as {
    rows: Array<{ n: string }>;
  };
  return `JY${beijingDateDigits(at)}${result.rows[0]!.n.padStart(6, '0')}`;
}
