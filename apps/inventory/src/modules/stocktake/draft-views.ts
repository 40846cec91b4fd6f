import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { toQuantityOrZero, type Queryable } from '@wms/platform';
import { materials, stockRows, stocktakeDrafts, type StocktakeDraftRow } from '../../db/schema/index.js';
import type { DraftView } from './schemas.js';

interface DraftWithItem {
  draft: StocktakeDraftRow;
  materialName: string | null;
  specModel: string | null;
  warehouseLocation: string | null;
}

/** Drafts with their item's name and current location, one query per page (never one per row). */
export async function readDraftViews(q: Queryable, where: SQL | undefined, page?: { limit: number; offset: number }): Promise<DraftView[]> {
  const query = q
    .select({ draft: stocktakeDrafts, materialName: materials.name, specModel: materials.specModel, warehouseLocation: stockRows.warehouseLocation })
    .from(stocktakeDrafts)
    .leftJoin(stockRows, eq(stockRows.id, stocktakeDrafts.stockId))
    .leftJoin(materials, eq(materials.id, stocktakeDrafts.baseId))
    .where(where)
    .orderBy(desc(stocktakeDrafts.scanTime), desc(stocktakeDrafts.id));
  const rows = page ? await query.limit(page.limit).offset(page.offset) : await query;
  return rows.map(toDraftView);
}

export async function countDrafts(q: Queryable, where: SQL | undefined): Promise<number> {
  const [row] = await q.select({ n: count() }).from(stocktakeDrafts).where(where);
  return row?.n ?? 0;
}

export async function readDraftView(q: Queryable, id: number): Promise<DraftView> {
  const [view] = await readDraftViews(q, and(eq(stocktakeDrafts.id, id)));
  return view!;
}

/** A draft never carries the book it was counted against: blind counters read drafts too. */
function toDraftView({ draft, materialName, specModel, warehouseLocation }: DraftWithItem): DraftView {
  return {
    id: draft.id,
    session_id: draft.sessionId,
    uuid: draft.uuid,
    stock_id: draft.stockId,
    source_table: draft.sourceTable,
    base_id: draft.baseId,
    material_name: materialName,
    spec_model: specModel,
    warehouse_location: warehouseLocation,
    user_id: draft.userId,
    quantity: toQuantityOrZero(draft.quantity),
    remark: draft.remark,
    scan_time: draft.scanTime.toISOString(),
    company: draft.companyName,
  };
}
