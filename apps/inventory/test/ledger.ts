import { expect } from 'vitest';
import { reconcileStockLedger } from '../src/modules/stock/ledger-reconcile.js';
import type { TestInventory } from './helpers.js';

/**
 * The ledger identity (contract §8), asserted for every stock row through the product's own reconcile
 * check (its tests in stock-edit.test.ts break a row on purpose): available_quantity = stock_quantity −
 * open reservations − borrowed and not returned; and no closed request still claims a reservation.
 */
export async function ledgerCheck(t: TestInventory): Promise<void> {
  const report = await t.service.deps.database.read((q) => reconcileStockLedger(q, { kind: 'all' }, new Date()));
  expect(report.mismatches).toEqual([]);
  expect(report.stale_reservations).toEqual([]);
}
