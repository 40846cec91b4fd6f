import { and, eq, type SQL } from 'drizzle-orm';
import { companyCondition, notFound, type Queryable, type Tx, type UseCaseContext } from '@wms/platform';
import type { AnyRequestRow, RequestFlow } from './request-flow.js';

type AnyFlow<Row extends AnyRequestRow> = RequestFlow<Row, unknown, string>;

/** Requests of the caller's company scope, whoever applied (approval, execution, closing, withdrawal). */
export const requestsInScope = (ctx: UseCaseContext, flow: AnyFlow<AnyRequestRow>) => companyCondition(ctx.scope(), flow.table.companyName);

/** Locks one request FOR UPDATE; unknown, another company's, or not visible: 404. */
export async function lockRequest<Row extends AnyRequestRow>(tx: Tx, flow: AnyFlow<Row>, id: number, visible: SQL | undefined): Promise<Row> {
  const [row] = await tx.select().from(flow.table).where(and(eq(flow.table.id, id), visible)).for('update');
  if (!row) throw notFound(flow.noun);
  return row as Row;
}

export async function readRequest<Row extends AnyRequestRow>(q: Queryable, flow: AnyFlow<Row>, id: number, visible: SQL | undefined): Promise<Row> {
  const [row] = await q.select().from(flow.table).where(and(eq(flow.table.id, id), visible));
  if (!row) throw notFound(flow.noun);
  return row as Row;
}
