import { and, asc, eq, sql } from 'drizzle-orm';
import { AppError, beijingDate, companyCondition, type CompanyScope, type Queryable, type UseCaseContext } from '@wms/platform';
import type { InventoryConfig } from '../../config.js';
import { materials, stockRows, type MaterialRow } from '../../db/schema/index.js';
import type { IdentityCardQuery, IdentityCardView } from './schemas.js';
import { getProductCard, trackingTargetOf, upstreamUnavailable, type TrackingAnswer } from './tracking-client.js';

const LOOKUP_TIMEOUT_MS = 5000;

/** The part of the tracking service's identity card this service uses. */
interface TrackingCard {
  serial_number: string;
  model: string;
  base_id: number | null;
  category: string | null;
  status: string;
  lifecycle_phase: string;
  current_stage: string | null;
  department: string | null;
  completed_at: string | null;
  stocked_in_at: string | null;
  shipped_at: string | null;
}

/**
 * GET /inbound/stock/card/{serial_number} (spec 4.2, contract §4, §8): the values that prefill a
 * finished-product stock-in from a production-tracking identity card. The tracking service is asked for
 * the product; its model becomes a material of the caller's company: the material of the product's
 * base_id, else the one material named like the model (several: the one in the card's category). No
 * match leaves base_id null and material_name the model. A stock row that already carries the serial
 * is shown, so a second stock-in is noticed.
 */
export async function identityCard(
  ctx: UseCaseContext,
  input: IdentityCardQuery & { serial_number: string },
  config: Pick<InventoryConfig, 'trackingUrl' | 'trackingWebhookKey'>,
): Promise<IdentityCardView> {
  const card = await fetchCard(config, input.serial_number.trim());
  const scope = ctx.scope(input.company);
  const { material, existing } = await ctx.read(async (q) => ({
    material: await materialOfModel(q, scope, card),
    existing: await stockRowWithSerial(q, scope, card.serial_number),
  }));
  return {
    source_table: 'stock_product',
    serial_number: card.serial_number,
    base_id: material?.id ?? null,
    material_name: material?.name ?? card.model,
    spec_model: material?.specModel ?? null,
    category: material?.category ?? card.category,
    unit: material?.unit ?? null,
    company_name: material?.companyName ?? null,
    in_quantity: 1,
    production_date: card.completed_at ? beijingDate(new Date(card.completed_at)) : null,
    tracking: {
      model: card.model,
      base_id: card.base_id,
      status: card.status,
      lifecycle_phase: card.lifecycle_phase,
      current_stage: card.current_stage,
      department: card.department,
      stocked_in_at: card.stocked_in_at,
      shipped_at: card.shipped_at,
    },
    existing_stock: existing ?? null,
  };
}

async function fetchCard(config: Pick<InventoryConfig, 'trackingUrl' | 'trackingWebhookKey'>, serialNumber: string): Promise<TrackingCard> {
  const target = trackingTargetOf(config);
  if (!target) throw upstreamUnavailable('not_configured', '');
  return cardFromAnswer(await getProductCard(target, serialNumber, AbortSignal.timeout(LOOKUP_TIMEOUT_MS)), serialNumber);
}

function cardFromAnswer(answer: TrackingAnswer, serialNumber: string): TrackingCard {
  if ('networkError' in answer) throw upstreamUnavailable('unreachable', answer.networkError);
  if (answer.status === 404) {
    throw new AppError('NOT_FOUND', `生产追踪系统中没有序列号为 ${serialNumber} 的产品`, { field: 'serial_number' });
  }
  if ([401, 403, 503].includes(answer.status)) throw upstreamUnavailable('rejected', `HTTP ${answer.status}`);
  if (answer.status < 200 || answer.status >= 300) throw upstreamUnavailable('unreachable', `HTTP ${answer.status}`);
  const card = parseCard(answer.body);
  if (!card) throw upstreamUnavailable('invalid_answer', '');
  return card;
}

function parseCard(body: string): TrackingCard | undefined {
  try {
    const value = JSON.parse(body) as Partial<TrackingCard>;
    if (typeof value.serial_number !== 'string' || typeof value.model !== 'string' || typeof value.status !== 'string') return undefined;
    return {
      serial_number: value.serial_number,
      model: value.model,
      base_id: Number.isInteger(value.base_id) ? value.base_id! : null,
      category: typeof value.category === 'string' ? value.category : null,
      status: value.status,
      lifecycle_phase: typeof value.lifecycle_phase === 'string' ? value.lifecycle_phase : '',
      current_stage: typeof value.current_stage === 'string' ? value.current_stage : null,
      department: typeof value.department === 'string' ? value.department : null,
      completed_at: typeof value.completed_at === 'string' ? value.completed_at : null,
      stocked_in_at: typeof value.stocked_in_at === 'string' ? value.stocked_in_at : null,
      shipped_at: typeof value.shipped_at === 'string' ? value.shipped_at : null,
    };
  } catch {
    return undefined;
  }
}

async function materialOfModel(q: Queryable, scope: CompanyScope, card: TrackingCard): Promise<MaterialRow | undefined> {
  const inScope = companyCondition(scope, materials.companyName);
  if (card.base_id !== null) {
    const [byId] = await q.select().from(materials).where(and(eq(materials.id, card.base_id), inScope));
    if (byId) return byId;
  }
  const named = await q.select().from(materials).where(and(eq(materials.name, card.model.trim()), inScope)).orderBy(asc(materials.id)).limit(20);
  if (named.length === 1) return named[0];
  const inCategory = named.filter((material) => material.category === card.category);
  return inCategory.length === 1 ? inCategory[0] : undefined;
}

async function stockRowWithSerial(q: Queryable, scope: CompanyScope, serialNumber: string) {
  const [row] = await q
    .select({ id: stockRows.id, sku: stockRows.sku, status: stockRows.status, company_name: materials.companyName })
    .from(stockRows)
    .innerJoin(materials, eq(materials.id, stockRows.baseId))
    .where(
      and(
        eq(stockRows.sourceTable, 'stock_product'),
        sql`upper(${stockRows.serialNumber}) = ${serialNumber.toUpperCase()}`,
        companyCondition(scope, materials.companyName),
      ),
    )
    .orderBy(asc(stockRows.id))
    .limit(1);
  return row;
}
