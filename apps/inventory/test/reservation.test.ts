import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError, Decimal, type Tx } from '@wms/platform';
import {
  allocateLargestFirst,
  mergeByMaterial,
  releaseReservation,
  reserveStock,
  type AllocationCandidate,
  type ReservationLine,
} from '../src/modules/reservation/index.js';
import { buildTestInventory, type TestInventory } from './helpers.js';
import { materialWithStock, rowState } from './outbound-fixtures.js';

const candidate = (id: number, baseId: number, available: string): AllocationCandidate => ({
  id,
  base_id: baseId,
  source_table: 'stock_buy',
  available_quantity: available,
});
const asPlain = (lines: Array<{ stock_id: number; quantity: Decimal }>) => lines.map((line) => [line.stock_id, line.quantity.toString()]);

describe('mergeByMaterial and allocateLargestFirst (pure)', () => {
  it('merges lines of one material, summing exactly, in order of first appearance', () => {
    const merged = mergeByMaterial([
      { base_id: 2, quantity: 0.1 },
      { base_id: 1, quantity: '3' },
      { base_id: 2, quantity: 0.2 },
    ]);
    expect(merged.map((need) => [need.base_id, need.quantity.toString()])).toEqual([
      [2, '0.3'],
      [1, '3'],
    ]);
  });

  it('takes the largest available first, a tie going to the lower id', () => {
    const candidates = [candidate(7, 1, '4'), candidate(3, 1, '9'), candidate(5, 1, '4'), candidate(9, 2, '100')];
    const { lines, shortages } = allocateLargestFirst([{ base_id: 1, quantity: new Decimal(15) }], candidates);
    expect(shortages).toEqual([]);
    expect(asPlain(lines)).toEqual([
      [3, '9'],
      [5, '4'],
      [7, '2'],
    ]);
  });

  it('is strict: a material short in total gets no lines and reports needed and remaining', () => {
    const { lines, shortages } = allocateLargestFirst(
      [
        { base_id: 1, quantity: new Decimal('2.5') },
        { base_id: 2, quantity: new Decimal(8) },
      ],
      [candidate(1, 1, '3'), candidate(2, 2, '4'), candidate(3, 2, '3.5')],
    );
    expect(asPlain(lines)).toEqual([[1, '2.5']]);
    expect(shortages.map((s) => [s.base_id, s.needed.toString(), s.remaining.toString()])).toEqual([[2, '8', '7.5']]);
  });

  it('reports a material without any candidate as remaining 0', () => {
    const { shortages } = allocateLargestFirst([{ base_id: 4, quantity: new Decimal(1) }], []);
    expect(shortages.map((s) => s.remaining.toString())).toEqual(['0']);
  });
});

describe('reserveStock and releaseReservation (shared by outbound, borrow and scrap)', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
    // companies exist through their users (decisions, Platform 17)
    await t.user('WAREHOUSE_MGR', 'ALPHA');
    await t.user('WAREHOUSE_MGR', 'BETA');
  });
  afterAll(() => t.close());

  const inTransaction = <T>(fn: (tx: Tx) => Promise<T>) => t.service.deps.database.transaction({ actor: 'reservation-test' }, fn);

  it('reserves the allocated lines (reserved = true) and takes them off available_quantity', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [2, 5]);
    const { lines } = await inTransaction((tx) => reserveStock(tx, 'ALPHA', [{ base_id: material.id, quantity: '6' }]));
    expect(lines).toEqual([
      { base_id: material.id, quantity: '5', stock_id: rows[1]!.id, source_table: 'stock_buy', reserved: true },
      { base_id: material.id, quantity: '1', stock_id: rows[0]!.id, source_table: 'stock_buy', reserved: true },
    ]);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 2, available: 1 });
    expect(await rowState(t, rows[1]!.id)).toMatchObject({ stock: 5, available: 0 });
  });

  it('throws STOCK_SHORTAGE with needed and remaining, and the rolled-back transaction keeps every row', async () => {
    const ok = await materialWithStock(t, 'ALPHA', [10]);
    const short = await materialWithStock(t, 'ALPHA', [1, 1]);
    const attempt = inTransaction((tx) =>
      reserveStock(tx, 'ALPHA', [
        { base_id: ok.material.id, quantity: 4 },
        { base_id: short.material.id, quantity: 3 },
      ]),
    );
    await expect(attempt).rejects.toMatchObject({ code: 'STOCK_SHORTAGE', extras: { needed: 3, remaining: 2, base_id: short.material.id } });
    expect(await rowState(t, ok.rows[0]!.id)).toMatchObject({ available: 10 });
  });

  it("refuses an unknown material or another company's with 404", async () => {
    const beta = await materialWithStock(t, 'BETA', [10]);
    for (const baseId of [beta.material.id, 987654]) {
      const attempt = inTransaction((tx) => reserveStock(tx, 'ALPHA', [{ base_id: baseId, quantity: 1 }]));
      await expect(attempt).rejects.toBeInstanceOf(AppError);
      await expect(attempt).rejects.toMatchObject({ code: 'NOT_FOUND', extras: { base_id: baseId } });
    }
  });

  it('releases only reserved lines, summing lines of one row, and marks them released', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const rowId = rows[0]!.id;
    const lines: ReservationLine[] = [
      { base_id: material.id, quantity: '2.5', stock_id: rowId, source_table: 'stock_buy', reserved: true },
      { base_id: material.id, quantity: '1.5', stock_id: rowId, source_table: 'stock_buy', reserved: true },
      { base_id: material.id, quantity: '3', stock_id: rowId, source_table: 'stock_buy', reserved: false },
    ];
    await inTransaction((tx) => tx.execute(sql`update stock_rows set available_quantity = 6 where id = ${rowId}`));

    const released = await inTransaction((tx) => releaseReservation(tx, lines));
    expect(released.map((line) => line.reserved)).toEqual([false, false, false]);
    expect(await rowState(t, rowId)).toMatchObject({ stock: 10, available: 10 });

    // Releasing the answer again gives nothing back: a release happens once.
    await inTransaction((tx) => releaseReservation(tx, released));
    expect(await rowState(t, rowId)).toMatchObject({ available: 10 });
  });

  it('skips a row that no longer exists', async () => {
    const line: ReservationLine = { base_id: 1, quantity: '1', stock_id: 2147483000, source_table: 'stock_buy', reserved: true };
    await expect(inTransaction((tx) => releaseReservation(tx, [line]))).resolves.toEqual([{ ...line, reserved: false }]);
  });
});
