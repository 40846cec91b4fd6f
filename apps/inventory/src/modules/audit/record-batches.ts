import { setImmediate as nextTurn } from 'node:timers/promises';
import { and, getTableName, gte, lt, lte, sql, type SQL } from 'drizzle-orm';
import { queryRows, tableColumns, type UseCaseContext } from '@wms/platform';
import { auditLogs } from '../../db/schema/index.js';
import { normaliseAction } from './actions.js';
import { hiddenColumnsOf } from './field-codes.js';
import { auditPageOf, type AuditPage, type AuditPageEntry } from './log-views.js';
import type { AuditLookups } from './lookups.js';
import { NEWEST_FIRST } from './list-service.js';

/** Rows read (and looked up) per database round trip of an export. */
export const EXPORT_BATCH_SIZE = 1000;
/**
 * Records an export writes per turn of the event loop (a few milliseconds of work): the requests
 * served beside it (scans) wait at most about that long for it.
 */
const ROWS_PER_TURN = 250;

/**
 * What an export covers, fixed before the first row is written: the counts per action, and the id
 * range of the newest `cap` matching records. Records are only ever inserted, so reading batches
 * inside that range later gives the same rows the counts describe.
 */
export interface ExportPlan {
  total: number;
  byAction: Map<string, number>;
  /** Ids of the exported records lie in [fromId, toId]; null when nothing matched. */
  range: { fromId: number; toId: number } | null;
  exported: number;
  truncated: boolean;
}

export async function planExport(ctx: UseCaseContext, where: SQL | undefined, cap: number): Promise<ExportPlan> {
  return ctx.read(async (q) => {
    const groups = await q
      .select({ action: auditLogs.action, n: sql<number>`count(*)::int`, maxId: sql<number>`max(${auditLogs.id})` })
      .from(auditLogs)
      .where(where)
      .groupBy(auditLogs.action);
    const byAction = new Map<string, number>();
    for (const group of groups) {
      const action = normaliseAction(group.action);
      byAction.set(action, (byAction.get(action) ?? 0) + Number(group.n));
    }
    const total = [...byAction.values()].reduce((sum, n) => sum + n, 0);
    if (total === 0) return { total, byAction, range: null, exported: 0, truncated: false };
    const toId = Math.max(...groups.map((group) => Number(group.maxId)));
    let fromId = 0;
    if (total > cap) {
      const [boundary] = await queryRows<{ id: string }>(
        q,
        sql`select id from ${auditLogs} where ${and(where, lte(auditLogs.id, toId))} order by id desc offset ${cap - 1} limit 1`,
      );
      fromId = Number(boundary?.id ?? 0);
    }
    return { total, byAction, range: { fromId, toId }, exported: Math.min(total, cap), truncated: total > cap };
  });
}

interface Batch {
  page: AuditPage;
  lastId: number;
  full: boolean;
}

/**
 * The columns of a batch, mapped by the platform's column list rather than drizzle's select: drizzle's row
 * mapping was 6 % of an export's CPU (the filter's conditions name the table, so it keeps its own name).
 */
const batchColumns = tableColumns(auditLogs, `"${getTableName(auditLogs)}"`);

async function readBatch(ctx: UseCaseContext, where: SQL | undefined, fromId: number, below: number): Promise<Batch | null> {
  return ctx.read(async (q) => {
    const raw = await queryRows<Record<string, unknown>>(
      q,
      sql`select ${sql.raw(batchColumns.select)} from ${auditLogs}
          where ${and(where, lt(auditLogs.id, below), gte(auditLogs.id, fromId))}
          order by ${NEWEST_FIRST} limit ${EXPORT_BATCH_SIZE}`,
    );
    const rows = raw.map(batchColumns.map);
    return rows.length > 0 ? { page: await auditPageOf(q, rows, hiddenColumnsOf(ctx.actor)), lastId: rows.at(-1)!.id, full: rows.length === EXPORT_BATCH_SIZE } : null;
  });
}

/**
 * The planned records newest first, a batch at a time (keyset on id: every batch is one indexed
 * range read, however deep the export is), each batch with its views and one lookup. The next batch
 * is already being read while the caller writes this one, so the database and the writer overlap.
 */
export async function* auditBatches(ctx: UseCaseContext, where: SQL | undefined, plan: ExportPlan): AsyncGenerator<AuditPage> {
  if (!plan.range) return;
  const { fromId, toId } = plan.range;
  let next: Promise<Batch | null> | null = readBatch(ctx, where, fromId, toId + 1);
  while (next) {
    const batch: Batch | null = await next;
    if (!batch) return;
    next = batch.full ? readBatch(ctx, where, fromId, batch.lastId) : null;
    // A read that fails while this batch is written must not go unhandled; the loop awaits it next.
    next?.catch(() => undefined);
    yield batch.page;
  }
}

/**
 * The planned records one by one (with their batch's lookups), giving the event loop a turn every
 * ROWS_PER_TURN records: the next batch is often read already, and without these turns an
 * export would hold the event loop (and the requests served beside it) for whole batches.
 */
export async function* auditEntries(ctx: UseCaseContext, where: SQL | undefined, plan: ExportPlan): AsyncGenerator<AuditPageEntry & { lookups: AuditLookups }> {
  let sinceTurn = 0;
  for await (const page of auditBatches(ctx, where, plan)) {
    for (const entry of page.entries) {
      if (++sinceTurn === ROWS_PER_TURN) {
        sinceTurn = 0;
        await nextTurn();
      }
      yield { ...entry, lookups: page.lookups };
    }
  }
}
