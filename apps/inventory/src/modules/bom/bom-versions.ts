import { and, asc, count, desc, eq, inArray, max } from 'drizzle-orm';
import { AppError, Decimal, toDecimalString, type Queryable, type Tx, type UseCaseContext } from '@wms/platform';
import { bomLines, bomVersions, type BomLineRow, type BomVersionRow } from '../../db/schema/index.js';
import { checkBomLines, lineProblemError, type BomParent } from './bom-materials.js';
import type { BomContent, BomItemInput } from './schemas.js';

/** The current BOM of a parent: its published version with the highest number. */
export async function currentVersionOf(q: Queryable, parentId: number): Promise<BomVersionRow | undefined> {
  const [row] = await q
    .select()
    .from(bomVersions)
    .where(and(eq(bomVersions.parentId, parentId), eq(bomVersions.status, 'published')))
    .orderBy(desc(bomVersions.version))
    .limit(1);
  return row;
}

export async function draftOf(q: Queryable, parentId: number): Promise<BomVersionRow | undefined> {
  const [row] = await q.select().from(bomVersions).where(and(eq(bomVersions.parentId, parentId), eq(bomVersions.status, 'draft')));
  return row;
}

export function linesOf(q: Queryable, versionId: number): Promise<BomLineRow[]> {
  return q.select().from(bomLines).where(eq(bomLines.bomVersionId, versionId)).orderBy(asc(bomLines.lineNo), asc(bomLines.id));
}

const itemsOf = (lines: BomLineRow[]): BomItemInput[] =>
  lines.map((line) => ({ child_id: line.childId, quantity: new Decimal(line.quantity).toNumber(), remark: line.remark }));

/**
 * Puts `content` into the parent's draft (the parent row is locked by the caller), creating the draft as
 * the next version when there is none. What `content` leaves out is carried: the draft's own remark and
 * lines, or for a new draft those of the current version. Published versions are never touched here.
 */
export async function writeDraft(ctx: UseCaseContext, tx: Tx, parent: BomParent, content: BomContent): Promise<BomVersionRow> {
  const existing = await draftOf(tx, parent.id);
  const base = existing ?? (await currentVersionOf(tx, parent.id));
  const items = content.items ?? (base ? itemsOf(await linesOf(tx, base.id)) : []);
  const [problem] = await checkBomLines(tx, ctx.scope(), parent, items.map((item) => item.child_id));
  if (problem) throw lineProblemError(problem);
  const remark = content.remark === undefined ? (base?.remark ?? null) : content.remark;
  const draft = existing ? await updateRemark(ctx, tx, existing, remark) : await insertDraft(ctx, tx, parent, remark);
  await replaceLines(tx, draft, items, ctx.now);
  return draft;
}

async function insertDraft(ctx: UseCaseContext, tx: Tx, parent: BomParent, remark: string | null): Promise<BomVersionRow> {
  const [last] = await tx.select({ version: max(bomVersions.version) }).from(bomVersions).where(eq(bomVersions.parentId, parent.id));
  const [created] = await tx
    .insert(bomVersions)
    .values({
      parentId: parent.id,
      companyName: parent.companyName,
      version: (last?.version ?? 0) + 1,
      status: 'draft',
      remark,
      createdBy: ctx.actor.id,
      createdAt: ctx.now,
      updatedAt: ctx.now,
    })
    .returning();
  return created!;
}

async function updateRemark(ctx: UseCaseContext, tx: Tx, draft: BomVersionRow, remark: string | null): Promise<BomVersionRow> {
  if (remark === draft.remark) return draft;
  const [updated] = await tx
    .update(bomVersions)
    .set({ remark, updatedAt: ctx.now })
    .where(and(eq(bomVersions.id, draft.id), eq(bomVersions.status, 'draft')))
    .returning();
  if (!updated) throw notADraft();
  return updated;
}

const notADraft = () => new AppError('STATUS_NOT_ALLOWED', '已发布的 BOM 版本不能修改，请保存为新草稿');

/**
 * Makes the draft's lines exactly `items` by difference: a removed child is deleted, a new one inserted,
 * a changed one updated. Each change is one audit record that reads as 移除子件 / 添加子件 / 子件 X: …
 * (spec 2.12 rule 4) rather than a wholesale delete and re-insert.
 */
async function replaceLines(tx: Tx, draft: BomVersionRow, items: BomItemInput[], now: Date): Promise<void> {
  const existing = new Map((await linesOf(tx, draft.id)).map((line) => [line.childId, line]));
  const wanted = new Set(items.map((item) => item.child_id));
  const removed = [...existing.values()].filter((line) => !wanted.has(line.childId)).map((line) => line.id);
  if (removed.length > 0) await tx.delete(bomLines).where(inArray(bomLines.id, removed));
  for (const [index, item] of items.entries()) {
    const values = { quantity: toDecimalString(item.quantity), remark: item.remark?.trim() || null, lineNo: index + 1 };
    const line = existing.get(item.child_id);
    if (!line) {
      await tx.insert(bomLines).values({
        ...values,
        bomVersionId: draft.id,
        parentId: draft.parentId,
        childId: item.child_id,
        companyName: draft.companyName,
        createdAt: now,
        updatedAt: now,
      });
      continue;
    }
    const changed = {
      ...(new Decimal(line.quantity).eq(values.quantity) ? {} : { quantity: values.quantity }),
      ...(line.remark === values.remark ? {} : { remark: values.remark }),
      ...(line.lineNo === values.lineNo ? {} : { lineNo: values.lineNo }),
    };
    if (Object.keys(changed).length > 0) await tx.update(bomLines).set({ ...changed, updatedAt: now }).where(eq(bomLines.id, line.id));
  }
}

/**
 * Publishes `content` as the parent's next version: it goes into the draft (so a draft's remark and lines
 * are carried when the body leaves them out), which then becomes published, from status draft only.
 */
export async function publishBom(ctx: UseCaseContext, tx: Tx, parent: BomParent, content: BomContent): Promise<BomVersionRow> {
  const draft = await writeDraft(ctx, tx, parent, content);
  const [lines] = await tx.select({ n: count() }).from(bomLines).where(eq(bomLines.bomVersionId, draft.id));
  if (!lines?.n) throw new AppError('VALIDATION_FAILED', '发布的 BOM 至少需要一个子件', { field: 'items' });
  const [published] = await tx
    .update(bomVersions)
    .set({ status: 'published', publishedAt: ctx.now, publishedBy: ctx.actor.id, updatedAt: ctx.now })
    .where(and(eq(bomVersions.id, draft.id), eq(bomVersions.status, 'draft')))
    .returning();
  if (!published) throw notADraft();
  return published;
}
