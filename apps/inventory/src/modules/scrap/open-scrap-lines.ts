import { sql } from 'drizzle-orm';
import { AppError, queryRows, type Queryable } from '@wms/platform';
import { SCRAP_STATUS, type ScrapSource } from '../../db/schema/index.js';

/**
 * 400 STATUS_NOT_ALLOWED when one of the sources is already on an open scrap request (status 0 or 1):
 * a borrowed line is scrapped whole, so a second request for it could only fail at execution. The
 * caller holds the sources' row locks, so two submissions for one line are counted one after the other.
 */
export async function assertNotOnOpenScrap(q: Queryable, sourceTable: ScrapSource, ids: readonly number[]): Promise<void> {
  const [open] = await queryRows<{ id: number; stock_id: number }>(
    q,
    sql`select r.id, (line->>'stock_id')::int as stock_id
          from scrap_requests r cross join lateral jsonb_array_elements(r.items_json) as line
         where r.status in (${SCRAP_STATUS.pending}, ${SCRAP_STATUS.approved})
           and line->>'source_table' = ${sourceTable}
           and (line->>'stock_id')::int = any(${sql.param([...ids])}::int[])
         order by r.id limit 1`,
  );
  if (open) {
    throw new AppError('STATUS_NOT_ALLOWED', `记录 ${open.stock_id} 已在未完成的报废申请 ${open.id} 中`, {
      request_id: open.id,
      stock_id: open.stock_id,
    });
  }
}
