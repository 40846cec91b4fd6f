import { describe, expect, it } from 'vitest';
import { approvedBorrow, borrowWorld, dispatchOk, type BorrowWorld } from './borrow-fixtures.js';
import { stockIn, useTestApp, type StockRowJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { ledgerCheck } from './ledger.js';
import { materialWithStock, submitOk } from './outbound-fixtures.js';
import { decideOk, submitOk as submitPurchaseOk } from './purchase-fixtures.js';

const STOCK = '/api/v1/inbound/stock';

/**
 * The stock rules of contract §4 ("Material and stock") and §8 ("Stock") against real holds: an outbound
 * reservation and a borrow freeze, never a hand-made one. After every test the ledger identity holds:
 * available = stock − open reservations − borrowed and not returned.
 */
describe('stock rows under real reservations and borrow freezes (contract §4, §8)', () => {
  let t: TestInventory;
  let w: BorrowWorld;
  useTestApp(borrowWorld, (built) => ({ t, w } = built), ledgerCheck);

  const read = async (id: number) => (await t.request('GET', `${STOCK}/${id}`, { token: w.mgr.token })).json() as StockRowJson;

  /** One ALPHA row of 10 with 6 reserved by an open outbound request. */
  async function reservedRow() {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 6 }]);
    return { material, row: rows[0]!, request };
  }

  /** One ALPHA row of 10 with 4 lent out by a dispatched borrow. */
  async function borrowedRow() {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity: 4 }]);
    await dispatchOk(t, w.mgr.token, { request_id: request.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 4 }], location: '研发部' });
    return { material, row: rows[0]! };
  }

  it('moves available by the difference of stock_quantity and refuses a cut the reservation cannot absorb', async () => {
    const { row } = await reservedRow();
    expect(await read(row.id)).toMatchObject({ stock_quantity: 10, available_quantity: 4 });

    const raised = await t.request('PUT', `${STOCK}/${row.id}`, { token: w.inbound.token, body: { stock_quantity: 11 } });
    expect(raised.statusCode).toBe(200);
    expect(raised.json()).toMatchObject({ stock_quantity: 11, available_quantity: 5 });

    const cut = await t.request('PUT', `/api/v1/stock/${row.id}`, { token: w.inbound.token, body: { stock_quantity: 5.5 } });
    expect(cut.statusCode).toBe(400);
    expect(cut.json()).toMatchObject({ code: 'QUANTITY_BELOW_RESERVED', reserved: 6 });
    expect(await read(row.id)).toMatchObject({ stock_quantity: 11, available_quantity: 5 });

    const toReserved = await t.request('PUT', `${STOCK}/${row.id}`, { token: w.inbound.token, body: { stock_quantity: 6 } });
    expect(toReserved.json()).toMatchObject({ stock_quantity: 6, available_quantity: 0 });
  });

  it('refuses to cut below the borrowed quantity or delete a row with goods out on loan', async () => {
    const { row } = await borrowedRow();
    expect(await read(row.id)).toMatchObject({ stock_quantity: 10, available_quantity: 6 });

    const cut = await t.request('PUT', `${STOCK}/${row.id}`, { token: w.mgr.token, body: { stock_quantity: 3 } });
    expect(cut.statusCode).toBe(400);
    expect(cut.json()).toMatchObject({ code: 'QUANTITY_BELOW_RESERVED', reserved: 4 });

    const deleted = await t.request('DELETE', `${STOCK}/${row.id}`, { token: w.mgr.token });
    expect(deleted.statusCode).toBe(400);
    expect(deleted.json()).toMatchObject({ code: 'IN_USE', reserved: 4 });
    expect(await read(row.id)).toMatchObject({ stock_quantity: 10, available_quantity: 6 });
  });

  it('changes status among 在库, 冻结 and 不良品 leaving quantities and the open reservation alone', async () => {
    const { row, request } = await reservedRow();
    for (const status of ['冻结', '不良品', '在库', '不良品']) {
      const changed = await t.request('POST', `${STOCK}/${row.id}/change-status`, { token: w.mgr.token, body: { status } });
      expect(changed.statusCode).toBe(200);
      expect(changed.json()).toMatchObject({ status, stock_quantity: 10, available_quantity: 4 });
    }
    const stored = await t.request('GET', `/api/v1/outbound/request/${request.id}`, { token: w.mgr.token });
    expect(stored.json().items).toEqual([expect.objectContaining({ stock_id: row.id, quantity: 6, reserved: true })]);
  });

  it('stocks in each kind with stock = available = in_quantity, status 在库 and a generated sku of its kind', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', []);
    const kinds = [
      { source_table: 'stock_buy', batch_number: 'LOT-1', prefix: 'B' },
      { source_table: 'stock_semi', batch_number: 'LOT-2', prefix: 'S' },
      { source_table: 'stock_product', serial_number: 'SN-CONF-1', prefix: 'P' },
    ];
    for (const { prefix, ...kind } of kinds) {
      const row = await stockIn(t, w.inbound.token, { base_id: material.id, in_quantity: 2.5, unit_cost: 1.5, ...kind });
      expect(row).toMatchObject({ ...kind, stock_quantity: 2.5, available_quantity: 2.5, in_quantity: 2.5, status: '在库' });
      expect(row.sku).toMatch(new RegExp(`^${prefix}\\d{8}-[2-9A-HJ-NP-Z]{6}$`));
    }
  });

  it('completes the approved purchase request a stock_buy stock-in names', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', []);
    const batch = await submitPurchaseOk(t, w.sales.token, [{ base_id: material.id, quantity: 5 }]);
    const purchase = await decideOk(t, w.mgr.token, batch.requests[0]!.id, 'approve');
    const row = await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: 5, request_id: purchase.id });
    expect(row.request_id).toBe(purchase.id);
    const after = await t.request('GET', `/api/v1/purchase/${purchase.id}`, { token: w.mgr.token });
    expect(after.json()).toMatchObject({ status: 3 });
  });

  it('answers a partial barcode matching several rows with 400 AMBIGUOUS_BARCODE on both paths', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', []);
    await stockIn(t, w.mgr.token, { base_id: material.id, sku: 'CONF-AMB-01' });
    await stockIn(t, w.mgr.token, { base_id: material.id, sku: 'CONF-AMB-02' });
    for (const group of ['/api/v1/inbound/stock', '/api/v1/stock']) {
      const response = await t.request('GET', `${group}/scan?barcode=conf-amb`, { token: w.sales.token });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'AMBIGUOUS_BARCODE', candidates: ['CONF-AMB-01', 'CONF-AMB-02'] });
    }
  });
});
