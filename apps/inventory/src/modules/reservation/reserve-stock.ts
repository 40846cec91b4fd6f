import {
  AppError,
  runStatement,
  runStatements,
  runStatementsAndCommit,
  statement,
  toQuantityOrZero,
  type BatchItem,
  type OpeningStatement,
  type Statement,
  type Tx,
} from '@wms/platform';
import type { StockKind } from '../../db/schema/stock.js';
import {
  allocateLargestFirst,
  mergeByMaterial,
  type AllocatedLine,
  type AllocationCandidate,
  type Shortage,
} from './allocate.js';
import type { ReservationLine, RequestedItem } from './lines.js';

/**
 * The reserved lines, with what the reservation read of their materials and rows on the way, so the
 * request's answer needs no lookup of its own.
 */
export interface ReservedStock {
  lines: ReservationLine[];
  materials: Map<number, { name: string; specModel: string; unit: string }>;
  /** The taken rows as they were when locked. */
  rows: Map<number, { sku: string; warehouseLocation: string }>;
}

/**
 * Reserves stock for a request of `company` (spec 3.2, 4.1): merge by material, allocate largest
 * available first over the 在库 rows, and take each line off available_quantity with a guarded
 * update. Strict: a shortage of any material is 400 STOCK_SHORTAGE and nothing is reserved.
 *
 * No candidate is locked while reading. The chosen rows are then locked in ascending id order and
 * taken all together or not at all, in one statement. When a row was taken by a concurrent request
 * meanwhile, that statement raises a serialization failure and the whole transaction starts over (its
 * rollback frees the rows this attempt locked), so every attempt takes its row locks in id order and two
 * reservations can never deadlock on each other. Rows taken stay locked until the caller's transaction
 * ends. (On PGlite transactions run one at a time, so the take never loses.)
 */
export async function reserveStock(tx: Tx, company: string, items: readonly RequestedItem[]): Promise<ReservedStock> {
  return takeReservation(tx, await planReservation(tx, company, items));
}

/** The allocation, decided and not yet taken: what a request will hold once takeReservation succeeds. */
export interface ReservationPlan {
  lines: ReservationLine[];
  allocated: AllocatedLine[];
  materials: ReservedStock['materials'];
}

/** Reads and allocates (404 for an unknown material, 400 STOCK_SHORTAGE); locks nothing, writes nothing. */
export async function planReservation(tx: Tx, company: string, items: readonly RequestedItem[]): Promise<ReservationPlan> {
  const [st, values] = candidatesStatement(company, items);
  return planFromCandidates(items, await runStatement(tx, st, values));
}

/**
 * The read a reservation plan needs, as a statement a caller may send early (in the round trip that
 * opens its transaction); planFromCandidates then allocates from its rows.
 */
export function candidatesStatement(company: string, items: readonly RequestedItem[]): OpeningStatement<CandidateRow> {
  return [MATERIALS_AND_CANDIDATES, [mergeByMaterial(items).map((need) => need.base_id), company]];
}

export function planFromCandidates(items: readonly RequestedItem[], rows: CandidateRow[]): ReservationPlan {
  const needs = mergeByMaterial(items);
  const { materials, candidates } = materialsAndCandidatesOf(rows, needs.map((need) => need.base_id));
  const { lines: allocated, shortages } = allocateLargestFirst(needs, candidates);
  if (shortages.length > 0) throw shortageError(shortages, materials);
  const lines = allocated.map((line) => ({
    base_id: line.base_id,
    quantity: line.quantity.toString(),
    stock_id: line.stock_id,
    source_table: line.source_table,
    reserved: true,
  }));
  return { lines, allocated, materials };
}

/**
 * Takes the planned lines off available_quantity, all or none; a row lost to a concurrent request
 * starts the transaction over (the take raises a serialization failure). The rows stay locked until
 * the transaction ends, so a caller writes what it can before this step: `before` runs right ahead of
 * the take, in the same round trip, and its rows are answered too. With `commit`, the transaction is
 * committed in that round trip as well (the rows are released at once; nothing may run on tx after).
 */
export async function takeReservation<Before = never>(
  tx: Tx,
  plan: ReservationPlan,
  before?: readonly [Statement<Before>, readonly unknown[]],
  options: { commit?: boolean } = {},
): Promise<ReservedStock & { before: Before[] }> {
  const ids = plan.allocated.map((line) => line.stock_id);
  const quantities = plan.allocated.map((line) => line.quantity.toString());
  const batch: BatchItem[] = [...(before ? [before] : []), [TAKE_ALL_IN_ID_ORDER, [ids, quantities]]];
  const answers = await (options.commit ? runStatementsAndCommit : runStatements)(tx, batch);
  const [{ taken }] = answers.at(-1) as [{ taken: Array<{ id: number; sku: string; warehouse_location: string }> }];
  const rows = new Map(taken.map((row) => [row.id, { sku: row.sku, warehouseLocation: row.warehouse_location }]));
  return { lines: plan.lines, materials: plan.materials, rows, before: (before ? answers[0] : []) as Before[] };
}

/**
 * The requested materials of the company with their candidates (在库 rows with available > 0), largest
 * first, in one prepared statement. A material without candidates still comes back (s columns null).
 */
export interface CandidateRow {
  base_id: number;
  name: string;
  spec_model: string;
  unit: string;
  id: number | null;
  source_table: StockKind | null;
  available_quantity: string | null;
}

const MATERIALS_AND_CANDIDATES = statement<CandidateRow>(
  'reserve_candidates',
  `select m.id as base_id, m.name, m.spec_model, m.unit, s.id, s.source_table, s.available_quantity
     from materials m
     left join stock_rows s on s.base_id = m.id and s.status = '在库' and s.available_quantity > 0
    where m.id = any($1::int[]) and m.company_name = $2::text
    order by s.available_quantity desc, s.id asc`,
);

/** A material that is unknown or of another company is 404. */
function materialsAndCandidatesOf(
  rows: CandidateRow[],
  baseIds: number[],
): { materials: ReservedStock['materials']; candidates: AllocationCandidate[] } {
  const materials = new Map(rows.map((row) => [row.base_id, { name: row.name, specModel: row.spec_model, unit: row.unit }]));
  const missing = baseIds.find((id) => !materials.has(id));
  if (missing !== undefined) throw new AppError('NOT_FOUND', `物料不存在: ${missing}`, { base_id: missing });
  const candidates: AllocationCandidate[] = [];
  for (const row of rows) {
    if (row.id === null || row.source_table === null || row.available_quantity === null) continue;
    candidates.push({ id: row.id, base_id: row.base_id, source_table: row.source_table, available_quantity: row.available_quantity });
  }
  return { materials, candidates };
}

/**
 * All or nothing: the materialized CTE locks the rows in ascending id order (FOR UPDATE above the sort)
 * and sees their newest versions; the update runs only when every wanted row is still 在库 with enough
 * available. Otherwise retry_unless() raises (the aggregate answers one row even when nothing was
 * taken), so the statement can go with the COMMIT: a lost race never commits what was written before it.
 */
const TAKE_ALL_IN_ID_ORDER = statement<{ taken: Array<{ id: number; sku: string; warehouse_location: string }> }>(
  'reserve_take_all',
  `with locked as materialized (
     select id, status, available_quantity from stock_rows where id = any($1::int[]) order by id for update
   ),
   wanted as (select * from unnest($1::int[], $2::numeric[]) as wanted(id, quantity)),
   short as (
     select 1 from wanted left join locked on locked.id = wanted.id
      where locked.id is null or locked.status <> '在库' or locked.available_quantity < wanted.quantity
   ),
   taken as (
     update stock_rows as s
        set available_quantity = s.available_quantity - wanted.quantity, updated_at = now()
       from wanted
      where s.id = wanted.id and not exists (select 1 from short)
     returning s.id, s.sku, s.warehouse_location
   )
   select retry_unless(count(*) = cardinality($1::int[]), 'a reserved row was taken by a concurrent request') as all_taken,
          coalesce(json_agg(json_build_object('id', id, 'sku', sku, 'warehouse_location', warehouse_location)), '[]') as taken
     from taken`,
);

function shortageError(shortages: Shortage[], materials: ReservedStock['materials']): AppError {
  const described = shortages.map((shortage) => ({
    base_id: shortage.base_id,
    material_name: materials.get(shortage.base_id)?.name ?? '',
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
