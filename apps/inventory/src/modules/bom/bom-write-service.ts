import { and, eq } from 'drizzle-orm';
import { can, isSuperAdmin, type Actor, type UseCaseContext } from '@wms/platform';
import { bomVersions } from '../../db/schema/index.js';
import { lockParent } from './bom-materials.js';
import { versionView } from './bom-read-service.js';
import { draftOf, publishBom, writeDraft } from './bom-versions.js';
import type { BomContent, BomVersionView, SaveBomBody } from './schemas.js';

export const BOM_REMARK = 'bom_manage:remark';

/**
 * The body as the caller may write it (spec 4.9: the top-level remark is cleaned by bom_manage:remark):
 * without the code the BOM-level remark is dropped before the use case, so the stored one is kept —
 * never overwritten, never emptied. Line remarks are part of the lines and need only bom_manage:operation.
 */
export function dropUnwritableRemark(actor: Actor, body: SaveBomBody): BomContent {
  const content: BomContent = { items: body.items };
  if (body.remark !== undefined && (isSuperAdmin(actor) || can(actor, BOM_REMARK))) content.remark = body.remark?.trim() || null;
  return content;
}

/** POST /bom/draft/save: the parent's draft holds `content` afterwards (created as the next version if needed). */
export async function saveDraft(ctx: UseCaseContext, parentId: number, content: BomContent): Promise<BomVersionView> {
  return ctx.transaction(async (tx) => {
    const parent = await lockParent(tx, ctx.scope(), parentId);
    const draft = await writeDraft(ctx, tx, parent, content);
    return (await versionView(tx, eq(bomVersions.id, draft.id)))!;
  });
}

/** POST /bom/save: publishes `content` (through the draft, so what it leaves out is carried from there). */
export async function saveAndPublish(ctx: UseCaseContext, parentId: number, content: BomContent): Promise<BomVersionView> {
  return ctx.transaction(async (tx) => {
    const parent = await lockParent(tx, ctx.scope(), parentId);
    const published = await publishBom(ctx, tx, parent, content);
    return (await versionView(tx, eq(bomVersions.id, published.id)))!;
  });
}

/** DELETE /bom/draft: discards the parent's draft (its lines go with it); published versions stay. */
export async function discardDraft(ctx: UseCaseContext, parentId: number): Promise<{ deleted: boolean }> {
  return ctx.transaction(async (tx) => {
    await lockParent(tx, ctx.scope(), parentId);
    const draft = await draftOf(tx, parentId);
    if (!draft) return { deleted: false };
    await tx.delete(bomVersions).where(and(eq(bomVersions.id, draft.id), eq(bomVersions.status, 'draft')));
    return { deleted: true };
  });
}
