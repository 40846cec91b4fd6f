import { and, asc, desc, eq, gt, gte, inArray, sql } from 'drizzle-orm';
import { AppError, toQuantityOrZero, type Tx } from '@wms/platform';
import { materials, stockRows } from '../../db/schema/index.js';
import {
  allocateLargestFirst,
  mergeByMaterial,
  type AllocatedLine,
  type AllocationCandidate,
  type Shortage,
} from './allocate.js';
import type { ReservationLine, RequestedItem } from './lines.js';

/** Each attempt that loses a row to a concurrent reservation starts over; after this many, 409. */
const MAX_ATTEMPTS = 8;

class RowTakenMeanwhile extends Error {}

/**
 * Reserves stock for a request of `company` (spec 3.2, 4.1): merge by material, allocate largest
 * available first over the 在库 rows, and take each line off available_quantity with a guarded
 * update. Strict: a shortage of any material is 400 STOCK_SHORTAGE and nothing is reserved.
 *
 * No candidate is locked while reading. The guarded updates run in ascending id order inside a
 * savepoint; when one finds its row taken by a concurrent request, the savepoint is rolled back
 * (which also releases the row locks of this attempt) and the whole allocation is read again.
 * So every attempt locks in id order and two reservations can never deadlock on each other.
 * Rows taken stay locked until the caller's transaction ends.
 */
export async function reserveStock(tx: Tx, company: string, items: readonly RequestedItem[]): Promise<ReservationLine[]> {
  const needs = mergeByMaterial(items);
  const names = await materialNamesOf(tx, company, needs.map((need) => need.base_id));
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    const candidates = await readCandidates(tx, company, [...names.keys()]);
    const { lines, shortages } = allocateLargestFirst(needs, candidates);
    if (shortages.length > 0) throw shortageError(shortages, names);
    if (await takeInIdOrder(tx, lines)) {
      return lines.map((line) => ({
        base_id: line.base_id,
        quantity: line.quantity.toString(),
        stock_id: line.stock_id,
        source_table: line.source_table,
        reserved: true,
      }));
    }
  }
  throw new AppError('CONFLICT', '库存正被其他申请同时占用，请稍后重试');
}

/** Names of the requested materials; a material that is unknown or of another company is 404. */
async function materialNamesOf(tx: Tx, company: string, baseIds: number[]): Promise<Map<number, string>> {
  const rows = await tx
    .select({ id: materials.id, name: materials.name })
    .from(materials)
    .where(and(inArray(materials.id, baseIds), eq(materials.companyName, company)));
  const names = new Map(rows.map((row) => [row.id, row.name]));
  const missing = baseIds.find((id) => !names.has(id));
  if (missing !== undefined) throw new AppError('NOT_FOUND', `物料不存在: ${missing}`, { base_id: missing });
  return names;
}

async function readCandidates(tx: Tx, company: string, baseIds: number[]): Promise<AllocationCandidate[]> {
  return tx
    .select({
      id: stockRows.id,
      base_id: stockRows.baseId,
      source_table: stockRows.sourceTable,
      available_quantity: stockRows.availableQuantity,
    })
    .from(stockRows)
    .innerJoin(materials, eq(materials.id, stockRows.baseId))
    .where(
      and(
        inArray(stockRows.baseId, baseIds),
        eq(materials.companyName, company),
        eq(stockRows.status, '在库'),
        gt(stockRows.availableQuantity, '0'),
      ),
    )
    .orderBy(desc(stockRows.availableQuantity), asc(stockRows.id));
}

/** True when every line was taken; false (and nothing taken) when a concurrent request got there first. */
async function takeInIdOrder(tx: Tx, lines: readonly AllocatedLine[]): Promise<boolean> {
  const inIdOrder = [...lines].sort((a, b) => a.stock_id - b.stock_id);
  try {
    await tx.transaction(async (savepoint) => {
      for (const line of inIdOrder) {
        const quantity = line.quantity.toString();
        const taken = await savepoint
          .update(stockRows)
          .set({ availableQuantity: sql`${stockRows.availableQuantity} - ${quantity}::numeric`, updatedAt: sql`now()` })
          .where(and(eq(stockRows.id, line.stock_id), eq(stockRows.status, '在库'), gte(stockRows.availableQuantity, quantity)))
          .returning({ id: stockRows.id });
        if (taken.length === 0) throw new RowTakenMeanwhile();
      }
    });
    return true;
  } catch (err) {
    if (err instanceof RowTakenMeanwhile) return false;
    throw err;
  }
}

function shortageError(shortages: Shortage[], names: Map<number, string>): AppError {
  const described = shortages.map((shortage) => ({
    base_id: shortage.base_id,
    material_name: names.get(shortage.base_id) ?? '',
    needed: toQuantityOrZero(shortage.needed.toString()),
    remaining: toQuantityOrZero(shortage.remaining.toString()),
  }));
  const first = described[0]!;
  const text = described.map((s) => `物料「${s.material_name}」需要 ${s.needed}，可用仅剩 ${s.remaining}`).join('；');
  return new AppError('STOCK_SHORTAGE', `库存不足：${text}`, {
    needed: first.needed,
    remaining: first.remaining,
    base_id: first.base_id,
    material_name: first.material_name,
    shortages: described,
  });
}
