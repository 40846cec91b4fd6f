import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import { API_PREFIX, pageOf, pagingOf, type Queryable } from '@wms/platform';
import { products, tasks } from '../../../db/schema/index.js';
import type { TrackingContext } from '../../identity/data-scope.js';
import { toProductView } from '../../products/product-mapper.js';
import { selectTaskRecords } from '../../tasks/task-access.js';
import { toTaskView } from '../../tasks/task-mapper.js';
import { CARD_KEYS, CARDS, cardClockOf, cardKeysOf, countWhere, type CardClock, type CardKey } from '../cards.js';
import { productFilterOf } from '../stats-filters.js';
import type { CardItemsQuery, CardView } from './schemas.js';

/**
 * Every card's count in two queries (one over products, one over tasks joined to their product), each
 * with the scope in its WHERE and one `count(*) filter (where card condition)` per card.
 */
export async function cardCounts(q: Queryable, scope: SQL | undefined, clock: CardClock): Promise<Record<CardKey, number>> {
  const countsOf = (keys: readonly CardKey[]) => Object.fromEntries(keys.map((key) => [key, countWhere(CARDS[key].condition(clock))]));
  const [productCounts] = await q.select(countsOf(cardKeysOf('product'))).from(products).where(scope);
  const [taskCounts] = await q
    .select(countsOf(cardKeysOf('task')))
    .from(tasks)
    .innerJoin(products, eq(products.id, tasks.productId))
    .where(scope);
  return { ...productCounts, ...taskCounts } as Record<CardKey, number>;
}

/** GET /dashboard/cards */
export async function dashboardCards(ctx: TrackingContext) {
  const scope = productFilterOf(await ctx.dataScope());
  const clock = cardClockOf(ctx.now);
  const counts = await ctx.read((q) => cardCounts(q, scope, clock));
  const cards: CardView[] = CARD_KEYS.map((card) => ({
    card,
    label: CARDS[card].label,
    description: CARDS[card].description,
    kind: CARDS[card].kind,
    count: counts[card],
    items_path: `${API_PREFIX}/dashboard/cards/${card}/items`,
  }));
  return { generated_at: ctx.now.toISOString(), today: clock.today, cards };
}

/**
 * GET /dashboard/cards/{card}/items: the rows behind a card, under exactly the card's WHERE (scope AND
 * condition), so total equals the card's count. Overdue tasks come most overdue first, the rest newest first.
 */
export async function cardItems(ctx: TrackingContext, card: CardKey, query: CardItemsQuery) {
  const paging = pagingOf(query);
  const scope = productFilterOf(await ctx.dataScope());
  const definition = CARDS[card];
  const where = and(scope, definition.condition(cardClockOf(ctx.now)));
  const header = { card, label: definition.label, kind: definition.kind };
  return ctx.read(async (q) => {
    if (definition.kind === 'product') {
      const rows = await q.select().from(products).where(where).orderBy(desc(products.id)).limit(paging.limit).offset(paging.offset);
      const [total] = await q.select({ n: count() }).from(products).where(where);
      return { ...header, ...pageOf(rows.map(toProductView), total?.n ?? 0, paging) };
    }
    const order = card === 'overdue_tasks' ? [asc(tasks.dueDate), asc(tasks.id)] : [desc(tasks.id)];
    const rows = await selectTaskRecords(q).where(where).orderBy(...order).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(tasks).innerJoin(products, eq(products.id, tasks.productId)).where(where);
    return { ...header, ...pageOf(rows.map(toTaskView), total?.n ?? 0, paging) };
  });
}
