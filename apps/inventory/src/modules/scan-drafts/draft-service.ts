import { and, desc, eq } from 'drizzle-orm';
import { Decimal, type Queryable, type UseCaseContext } from '@wms/platform';
import { scanDrafts, type ScanDraftRow } from '../../db/schema/index.js';
import type { DraftItem, DraftKeyQuery, DraftView, SaveDraftBody } from './schemas.js';

/**
 * Scan drafts (spec 2.11, 4.7). The owner is always the caller from the token, never a body or query
 * field; a draft holds no stock effect. Saving replaces the whole list; saving an empty list deletes.
 */
const ownDraft = (ctx: UseCaseContext, bizType: string, requestId: string) =>
  and(eq(scanDrafts.userId, ctx.actor.id), eq(scanDrafts.bizType, bizType as never), eq(scanDrafts.requestId, requestId));

export async function getDraft(ctx: UseCaseContext, query: DraftKeyQuery): Promise<DraftView | null> {
  const [row] = await ctx.read((q: Queryable) => q.select().from(scanDrafts).where(ownDraft(ctx, query.biz_type, query.request_id)));
  return row ? toDraftView(row) : null;
}

export async function saveDraft(ctx: UseCaseContext, input: SaveDraftBody) {
  const requestId = String(input.request_id);
  if (input.items.length === 0) {
    const deleted = await deleteOwnDraft(ctx, input.biz_type, requestId);
    return { saved: false, deleted, draft: null };
  }
  const [row] = await ctx.transaction((tx) =>
    tx
      .insert(scanDrafts)
      .values({
        userId: ctx.actor.id,
        bizType: input.biz_type,
        requestId,
        itemsJson: input.items,
        companyName: ctx.actor.company,
        updatedAt: ctx.now,
      })
      .onConflictDoUpdate({
        target: [scanDrafts.userId, scanDrafts.bizType, scanDrafts.requestId],
        set: { itemsJson: input.items, companyName: ctx.actor.company, updatedAt: ctx.now },
      })
      .returning(),
  );
  return { saved: true, deleted: false, draft: toDraftView(row!) };
}

export async function deleteDraft(ctx: UseCaseContext, query: DraftKeyQuery) {
  return { deleted: await deleteOwnDraft(ctx, query.biz_type, query.request_id) };
}

async function deleteOwnDraft(ctx: UseCaseContext, bizType: string, requestId: string): Promise<boolean> {
  const deleted = await ctx.transaction((tx) => tx.delete(scanDrafts).where(ownDraft(ctx, bizType, requestId)).returning({ id: scanDrafts.id }));
  return deleted.length > 0;
}

/** The caller's drafts, newest first, each with its line count and scanned total (one query). */
export async function draftOverview(ctx: UseCaseContext) {
  const rows = await ctx.read((q: Queryable) =>
    q.select().from(scanDrafts).where(eq(scanDrafts.userId, ctx.actor.id)).orderBy(desc(scanDrafts.updatedAt), desc(scanDrafts.id)),
  );
  return rows.map((row) => ({
    biz_type: row.bizType,
    request_id: requestIdOut(row.requestId),
    lines: row.itemsJson.length,
    scanned_quantity: sumOf(row.itemsJson, (item) => item.scanned_quantity ?? item.quantity).toNumber(),
    requested_quantity: requestedTotal(row.itemsJson),
    updated_at: row.updatedAt.toISOString(),
  }));
}

function requestedTotal(items: DraftItem[]): number | null {
  return items.some((item) => item.requested_quantity !== undefined) ? sumOf(items, (item) => item.requested_quantity).toNumber() : null;
}

function sumOf(items: DraftItem[], pick: (item: DraftItem) => number | undefined): Decimal {
  return items.reduce((total, item) => total.plus(pick(item) ?? 0), new Decimal(0));
}

/** Request ids of the numbered flows go out as numbers, stocktake session ids as text. */
const requestIdOut = (stored: string): number | string => (/^[1-9]\d{0,15}$/.test(stored) ? Number(stored) : stored);

/** Spec 2.11 names the whole-list snapshot items_json; items (the name POST takes) carries the same list. */
function toDraftView(row: ScanDraftRow): DraftView {
  const items = row.itemsJson as DraftItem[];
  return {
    id: row.id,
    user_id: row.userId,
    biz_type: row.bizType,
    request_id: requestIdOut(row.requestId),
    items,
    items_json: items,
    updated_at: row.updatedAt.toISOString(),
  };
}
