import { desc, eq, sql } from 'drizzle-orm';
import { notFound } from '@wms/platform';
import { materials, products, type MaterialRow, type ProductRow } from '../../db/schema/index.js';
import type { ReceiverContext } from './receiver-context.js';
import type { ProductCard } from './schemas.js';
import { normalizeSerial } from './serials.js';

/**
 * GET /integrations/products/{sn} (contract §8, webhook key): the identity card of one product, for the
 * inventory service to prefill a stock-in. The model's material is the one of the product's base_id, else
 * one named like the model (preferring a material known from the inventory, which lends its base_id).
 * Unknown serial: 404.
 */
export async function productCard(ctx: ReceiverContext, serialNumber: string): Promise<ProductCard> {
  const serial = normalizeSerial(serialNumber) ?? '';
  return ctx.read(async (q) => {
    const [product] = await q.select().from(products).where(eq(products.serialNumber, serial));
    if (!product) throw notFound(`序列号 ${serialNumber} 对应的产品`);
    const [material] =
      product.baseId === null
        ? await q
            .select()
            .from(materials)
            .where(eq(materials.name, product.model))
            .orderBy(sql`${materials.baseId} is null`, desc(materials.updatedAt))
            .limit(1)
        : await q.select().from(materials).where(eq(materials.baseId, product.baseId));
    return toProductCard(product, material ?? null, ctx.department);
  });
}

function toProductCard(row: ProductRow, material: MaterialRow | null, department: string): ProductCard {
  return {
    serial_number: row.serialNumber,
    model: row.model,
    base_id: row.baseId ?? material?.baseId ?? null,
    category: material?.category ?? null,
    status: row.status,
    lifecycle_phase: row.lifecyclePhase,
    current_stage: row.currentStage,
    department,
    completed_at: row.completedAt?.toISOString() ?? null,
    stocked_in_at: row.stockedInAt?.toISOString() ?? null,
    shipped_at: row.shippedAt?.toISOString() ?? null,
  };
}
