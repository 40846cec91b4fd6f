import { and, eq } from 'drizzle-orm';
import { AppError, notFound, requirePatchedField, validationFailed, type Tx } from '@wms/platform';
import { businessGroups, materials, products, type LifecyclePhase, type ProductRow, type ProductStatus } from '../../db/schema/index.js';
import type { TrackingContext } from '../identity/data-scope.js';
import { toProductView } from './product-mapper.js';
import { assertOperable } from './product-scope.js';
import { assertManualMove, effectsOfMove, initialStatusOf } from './product-status.js';
import { insertWithFreshSerial, type SerialDraw } from './serial-number.js';
import type { CreateProductBody, UpdateProductBody } from './schemas.js';

async function assertGroupExists(tx: Tx, groupId: number | null | undefined): Promise<void> {
  if (groupId === null || groupId === undefined) return;
  const [group] = await tx.select({ id: businessGroups.id }).from(businessGroups).where(eq(businessGroups.id, groupId));
  if (!group) throw validationFailed(`业务组 ${groupId} 不存在`, { field: 'group_id' });
}

/** The model of a new product: as sent, else the name of the known material base_id. */
async function modelOf(tx: Tx, input: CreateProductBody): Promise<string> {
  if (input.model) return input.model.trim();
  if (input.base_id) {
    const [material] = await tx.select({ name: materials.name }).from(materials).where(eq(materials.baseId, input.base_id));
    if (material) return material.name;
    throw validationFailed(`物料 ${input.base_id} 尚未登记，请填写型号 model`, { field: 'model' });
  }
  throw validationFailed('缺少必填字段 model（或已登记物料的 base_id）', { field: 'model' });
}

/**
 * A new product starts in its phase's status; a sent status is reached from there by an allowed manual move
 * (a unit registered when already finished: 生产中 → 待仓库收货, with its completion time), else 400.
 */
function initialStateOf(phase: LifecyclePhase, sent: ProductStatus | undefined, now: Date): { status: ProductStatus; completedAt: Date | null } {
  const start = initialStatusOf(phase);
  if (sent === undefined || sent === start) return { status: start, completedAt: null };
  assertManualMove(start, sent);
  return { status: sent, completedAt: effectsOfMove(start, sent, now).completedAt ?? null };
}

/** Creates a product under a generated serial number, in a phase the caller may operate. */
export async function createProduct(ctx: TrackingContext, input: CreateProductBody, draw: SerialDraw) {
  const phase = input.lifecycle_phase ?? (input.status === '售后中' ? 'AFTER_SALES' : 'PRODUCTION');
  const { status, completedAt } = initialStateOf(phase, input.status, ctx.now);
  assertOperable(await ctx.dataScope(), phase);
  const row = await ctx.transaction(async (tx) => {
    const model = await modelOf(tx, input);
    await assertGroupExists(tx, input.group_id);
    return insertWithFreshSerial(
      tx,
      {
        model,
        baseId: input.base_id ?? null,
        status,
        completedAt,
        lifecyclePhase: phase,
        currentStage: input.current_stage ?? '装配',
        groupId: input.group_id ?? null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      },
      draw,
    );
  });
  return toProductView(row);
}

type ProductChanges = Partial<Pick<ProductRow, 'model' | 'baseId' | 'status' | 'lifecyclePhase' | 'currentStage' | 'groupId' | 'completedAt'>>;

/** The columns the body changes, with the effects of a status move; equal values are left out. */
function changesOf(current: ProductRow, input: UpdateProductBody, now: Date): ProductChanges {
  const changes: ProductChanges = {};
  if (input.lifecycle_phase !== undefined) changes.lifecyclePhase = input.lifecycle_phase;
  if (input.model !== undefined) changes.model = input.model.trim();
  if (input.base_id !== undefined) changes.baseId = input.base_id;
  if (input.current_stage !== undefined) changes.currentStage = input.current_stage;
  if (input.group_id !== undefined) changes.groupId = input.group_id;
  // last: a status move's effects (→ 售后中 sets AFTER_SALES) win over a field sent with it
  if (input.status !== undefined && input.status !== current.status) {
    assertManualMove(current.status, input.status);
    Object.assign(changes, { status: input.status }, effectsOfMove(current.status, input.status, now));
  }
  for (const key of Object.keys(changes) as (keyof ProductChanges)[]) {
    const before = current[key];
    const after = changes[key];
    const same = before instanceof Date && after instanceof Date ? before.getTime() === after.getTime() : before === after;
    if (same) delete changes[key];
  }
  return changes;
}

/**
 * PATCH /products/{id}: the product must be in the caller's scope before the change and after it
 * (a user cannot move a product into a phase they cannot see); otherwise 403. Nothing changed → the
 * product is answered as it is and nothing is written.
 */
export async function updateProduct(ctx: TrackingContext, id: number, input: UpdateProductBody) {
  // the schema drops unknown fields after its "at least one property" check: a body of only those is `{}`
  requirePatchedField(input, ['model', 'base_id', 'status', 'lifecycle_phase', 'current_stage', 'group_id']);
  const scope = await ctx.dataScope();
  const row = await ctx.transaction(async (tx) => {
    const [current] = await tx.select().from(products).where(eq(products.id, id)).for('update');
    if (!current) throw notFound('产品');
    assertOperable(scope, current.lifecyclePhase, current.serialNumber);
    const changes = changesOf(current, input, ctx.now);
    if (Object.keys(changes).length === 0) return current;
    assertOperable(scope, changes.lifecyclePhase ?? current.lifecyclePhase, current.serialNumber);
    if (changes.groupId !== undefined) await assertGroupExists(tx, changes.groupId);
    const [updated] = await tx
      .update(products)
      .set({ ...changes, updatedAt: ctx.now })
      .where(and(eq(products.id, id), eq(products.status, current.status)))
      .returning();
    if (!updated) throw new AppError('CONFLICT', '产品已被修改，请重试');
    return updated;
  });
  return toProductView(row);
}
