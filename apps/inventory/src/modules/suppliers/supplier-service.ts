import { and, asc, count, eq, ne } from 'drizzle-orm';
import { AppError, companyCondition, keywordMatch, notFound, pageOf, pagingOf, timeRangeCondition, type Tx, type UseCaseContext } from '@wms/platform';
import { purchaseRequests, suppliers, type SupplierRow } from '../../db/schema/index.js';
import { companyForRecord } from '../identity/company-rules.js';
import { toSupplierView } from './supplier-mapper.js';
import type { CreateSupplierBody, SupplierListQuery, SupplierView, UpdateSupplierBody } from './schemas.js';

/** GET /suppliers: the caller's company's suppliers (login only), id order, keyword on name or contact, dates on created_at. */
export async function listSuppliers(ctx: UseCaseContext, query: SupplierListQuery) {
  const paging = pagingOf(query);
  const where = and(
    companyCondition(ctx.scope(query.company), suppliers.companyName),
    keywordMatch(query.keyword, suppliers.name, suppliers.contact),
    timeRangeCondition(suppliers.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(suppliers).where(where).orderBy(asc(suppliers.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(suppliers).where(where);
    return pageOf(rows.map(toSupplierView), total?.n ?? 0, paging);
  });
}

/** Another company's supplier is as unknown as a missing one (404). */
export async function getSupplier(ctx: UseCaseContext, id: number): Promise<SupplierView> {
  const [row] = await ctx.read((q) => q.select().from(suppliers).where(inScope(ctx, id)));
  if (!row) throw notFound('供应商');
  return toSupplierView(row);
}

export async function createSupplier(ctx: UseCaseContext, input: CreateSupplierBody): Promise<SupplierView> {
  const companyName = await ctx.read((q) => companyForRecord(q, ctx.actor, input.company_name));
  const name = input.name.trim();
  const row = await ctx.transaction(async (tx) => {
    await assertNameFree(tx, companyName, name);
    const [created] = await tx
      .insert(suppliers)
      .values({
        companyName,
        name,
        contact: input.contact?.trim() ?? '',
        leadTimeDays: input.lead_time_days ?? null,
        remark: input.remark?.trim() || null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    return created!;
  });
  return toSupplierView(row);
}

/** Partial; a write that changes nothing leaves no trace (no audit record). */
export async function updateSupplier(ctx: UseCaseContext, id: number, input: UpdateSupplierBody): Promise<SupplierView> {
  const row = await ctx.transaction(async (tx) => {
    const current = await lockSupplier(ctx, tx, id);
    const values: Partial<SupplierRow> = {
      name: input.name?.trim(),
      contact: input.contact === undefined ? undefined : (input.contact?.trim() ?? ''),
      leadTimeDays: input.lead_time_days,
      remark: input.remark === undefined ? undefined : input.remark?.trim() || null,
    };
    const changed = (Object.keys(values) as (keyof typeof values)[]).filter((key) => values[key] !== undefined && values[key] !== current[key]);
    if (changed.length === 0) return current;
    if (values.name !== undefined && values.name !== current.name) await assertNameFree(tx, current.companyName, values.name, id);
    const [updated] = await tx
      .update(suppliers)
      .set({ ...Object.fromEntries(changed.map((key) => [key, values[key]])), updatedAt: ctx.now })
      .where(eq(suppliers.id, id))
      .returning();
    return updated!;
  });
  return toSupplierView(row);
}

/** Refused with 400 IN_USE while purchase requests name the supplier: their history keeps it. */
export async function deleteSupplier(ctx: UseCaseContext, id: number) {
  await ctx.transaction(async (tx) => {
    await lockSupplier(ctx, tx, id);
    const [used] = await tx.select({ n: count() }).from(purchaseRequests).where(eq(purchaseRequests.supplierId, id));
    if (used && used.n > 0) {
      throw new AppError('IN_USE', `供应商仍被 ${used.n} 条采购申请使用，不能删除`, { usages: [{ label: '采购申请', count: used.n }] });
    }
    await tx.delete(suppliers).where(eq(suppliers.id, id));
  });
  return { id, deleted: true as const };
}

const inScope = (ctx: UseCaseContext, id: number) => and(eq(suppliers.id, id), companyCondition(ctx.scope(), suppliers.companyName));

async function lockSupplier(ctx: UseCaseContext, tx: Tx, id: number): Promise<SupplierRow> {
  const [row] = await tx.select().from(suppliers).where(inScope(ctx, id)).for('update');
  if (!row) throw notFound('供应商');
  return row;
}

/** 409 DUPLICATE naming the supplier; the unique index stays the last line of defence. */
async function assertNameFree(tx: Tx, company: string, name: string, exceptId?: number): Promise<void> {
  const [taken] = await tx
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(and(eq(suppliers.companyName, company), eq(suppliers.name, name), exceptId === undefined ? undefined : ne(suppliers.id, exceptId)));
  if (taken) throw new AppError('DUPLICATE', `供应商「${name}」已存在`, { field: 'name', id: taken.id });
}
