import { beforeAll, describe, expect, it } from 'vitest';
import { stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { approveOk, materialWithStock, submitOk, useOutboundWorld, type OutboundWorld, type RequestJson } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

const scan = (token: string, barcode: string, requestId?: number) =>
  t.request('GET', `/api/v1/outbound/scan?barcode=${encodeURIComponent(barcode)}${requestId ? `&request_id=${requestId}` : ''}`, { token });
const post = (path: string, token: string) => t.request('POST', `/api/v1/outbound/request${path}`, { token });

describe('GET /outbound/scan: the add-back rule', () => {
  let material: MaterialJson;
  let big: StockRowJson;
  let small: StockRowJson;
  let mine: RequestJson;
  let theirs: RequestJson;

  beforeAll(async () => {
    const made = await materialWithStock(t, 'ALPHA', [10, 6], { unit_cost: 12.5 });
    material = made.material;
    [big, small] = made.rows as [StockRowJson, StockRowJson];
    mine = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 8 }]); // big: 10 → 2
    theirs = await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 3 }]); // small: 6 → 3
  });

  it("adds the request's own reservation on the row back to available_quantity", async () => {
    const response = await scan(w.op.token, big.sku, mine.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      id: big.id,
      sku: big.sku,
      base_id: material.id,
      material_name: material.name,
      status: '在库',
      stock_quantity: 10,
      available_quantity: 10,
      live_available_quantity: 2,
      reserved_by_request: 8,
      reservation_applied: true,
    });
  });

  it('adds nothing back for another request, a row the request does not hold, or no request', async () => {
    expect((await scan(w.op.token, big.sku, theirs.id)).json()).toMatchObject({
      available_quantity: 2,
      live_available_quantity: 2,
      reservation_applied: false,
    });
    expect((await scan(w.op.token, small.sku, mine.id)).json()).toMatchObject({ available_quantity: 3, reservation_applied: false });
    expect((await scan(w.op.token, big.sku)).json()).toMatchObject({ available_quantity: 2, reservation_applied: false });
  });

  it('keeps adding back once approved, and stops once the request is closed or rejected', async () => {
    await approveOk(t, w.mgr.token, mine.id);
    expect((await scan(w.op.token, big.sku, mine.id)).json()).toMatchObject({ available_quantity: 10, reservation_applied: true });

    await post(`/${mine.id}/close`, w.mgr.token);
    expect((await scan(w.op.token, big.sku, mine.id)).json()).toMatchObject({
      available_quantity: 10,
      live_available_quantity: 10,
      reservation_applied: false,
    });

    await post(`/${theirs.id}/reject`, w.mgr.token);
    expect((await scan(w.op.token, small.sku, theirs.id)).json()).toMatchObject({ available_quantity: 6, reservation_applied: false });
  });

  it('leaves cost fields out for a caller without the price permission', async () => {
    const forOperator = (await scan(w.op.token, big.sku)).json();
    expect(forOperator).not.toHaveProperty('unit_cost');
    expect((await scan(w.admin, big.sku)).json()).toMatchObject({ unit_cost: 12.5 });
  });

  it("answers 404 for an unknown or partial barcode, 403 OTHER_COMPANY for another company's", async () => {
    expect((await scan(w.op.token, 'NO-SUCH-CODE')).json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await scan(w.op.token, big.sku.slice(0, -1))).statusCode).toBe(404);

    const beta = await materialWithStock(t, 'BETA', [5]);
    const other = await scan(w.op.token, beta.rows[0]!.sku);
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });

    // A cross-domain caller scanning for an ALPHA request: a BETA row is still another company's.
    const forAlphaRequest = await scan(w.admin, beta.rows[0]!.sku, mine.id);
    expect(forAlphaRequest.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
  });

  it('answers 400 NOT_IN_STOCK for a row that is not 在库', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [4]);
    await t.request('POST', `/api/v1/inbound/stock/${rows[0]!.id}/change-status`, { token: w.admin, body: { status: '不良品' } });
    const response = await scan(w.op.token, rows[0]!.sku);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'NOT_IN_STOCK', status: '不良品' });
  });

  it("needs outbound_create:operation; a request of another company is 404; bad query is 400", async () => {
    const forbidden = await scan(w.sales.token, big.sku);
    expect(forbidden.statusCode).toBe(403);
    expect((await scan(w.betaMgr.token, big.sku, mine.id)).statusCode).toBe(404);
    expect((await scan(w.op.token, big.sku, 999999)).statusCode).toBe(404);
    expect((await t.request('GET', '/api/v1/outbound/scan', { token: w.op.token })).json().code).toBe('VALIDATION_FAILED');
    expect((await t.request('GET', `/api/v1/outbound/scan?barcode=${big.sku}&request_id=x`, { token: w.op.token })).statusCode).toBe(400);
  });

  it('answers 400 VALIDATION_FAILED naming barcode for a barcode of blanks only, not 404', async () => {
    const response = await scan(w.op.token, '   ', mine.id);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'barcode', msg: expect.any(String) });
  });
});

describe('GET /outbound/alternatives', () => {
  it('lists 在库 rows of the material with available > 0 after the add-back, largest first', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5, 4, 3, 7]);
    const [, four, three, seven] = rows as [StockRowJson, StockRowJson, StockRowJson, StockRowJson];
    const mine = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 7 }]); // seven → 0
    await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 5 }]); // five → 0
    await t.request('POST', `/api/v1/inbound/stock/${three.id}/change-status`, { token: w.admin, body: { status: '冻结' } });

    const response = await t.request('GET', `/api/v1/outbound/alternatives?base_id=${material.id}&request_id=${mine.id}`, {
      token: w.op.token,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json().map((row: { id: number; available_quantity: number; reservation_applied: boolean }) => [row.id, row.available_quantity, row.reservation_applied])).toEqual([
      [seven.id, 7, true],
      [four.id, 4, false],
    ]);

    const withoutRequest = await t.request('GET', `/api/v1/outbound/alternatives?base_id=${material.id}`, { token: w.sales.token });
    expect(withoutRequest.json().map((row: { id: number }) => row.id)).toEqual([four.id]);
  });

  it('answers 404 for an unknown or foreign material, 400 without base_id, 403 without a code', async () => {
    const beta = await materialWithStock(t, 'BETA', [5]);
    const get = (query: string, token = w.op.token) => t.request('GET', `/api/v1/outbound/alternatives${query}`, { token });
    expect((await get(`?base_id=${beta.material.id}`)).statusCode).toBe(404);
    expect((await get('?base_id=999999')).statusCode).toBe(404);
    expect((await get('')).statusCode).toBe(400);
    expect((await get(`?base_id=${beta.material.id}`, w.inbound.token)).statusCode).toBe(403);
  });
});

describe('POST /outbound/bom-match-stock', () => {
  const match = (token: string, body: unknown) => t.request('POST', '/api/v1/outbound/bom-match-stock', { token, body });

  it('answers the rows with available stock of every kind for the materials, without price fields', async () => {
    const bought = await materialWithStock(t, 'ALPHA', [5, 2], { unit_cost: 3 });
    const other = await materialWithStock(t, 'ALPHA', [1]);
    const semi = await stockIn(t, w.admin, { base_id: other.material.id, source_table: 'stock_semi', in_quantity: 4, company_name: 'ALPHA' });
    const product = await stockIn(t, w.admin, { base_id: other.material.id, source_table: 'stock_product', in_quantity: 1, serial_number: 'SN-BOM-1', company_name: 'ALPHA' });
    const beta = await materialWithStock(t, 'BETA', [9]);
    await submitOk(t, w.sales.token, [{ base_id: bought.material.id, quantity: 2 }]); // the row of 2 → first of 5 is larger: 5 → 3
    await submitOk(t, w.sales.token, [{ base_id: other.material.id, quantity: 1 }], { outbound_type: 'SALES' }); // semi 4 → 3
    await t.request('POST', `/api/v1/inbound/stock/${other.rows[0]!.id}/change-status`, { token: w.admin, body: { status: '冻结' } });

    const response = await match(w.admin, { child_ids: [bought.material.id, other.material.id, beta.material.id] });
    expect(response.statusCode).toBe(200);
    const rows = response.json() as Array<Record<string, unknown>>;
    expect(rows.map((row) => [row.id, row.source_table, row.available_quantity])).toEqual(
      expect.arrayContaining([
        [bought.rows[0]!.id, 'stock_buy', 3],
        [bought.rows[1]!.id, 'stock_buy', 2],
        [semi.id, 'stock_semi', 3],
        [product.id, 'stock_product', 1],
        [beta.rows[0]!.id, 'stock_buy', 9],
      ]),
    );
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(row).not.toHaveProperty('unit_cost');
      expect(row).not.toHaveProperty('referencePrice');
    }

    const scoped = (await match(w.sales.token, { child_ids: [bought.material.id, beta.material.id] })).json();
    expect(scoped.map((row: { base_id: number }) => row.base_id)).toEqual([bought.material.id, bought.material.id]);
  });

  it('answers [] for no ids; refuses malformed bodies; needs an outbound code', async () => {
    expect((await match(w.sales.token, { child_ids: [] })).json()).toEqual([]);
    expect((await match(w.sales.token, {})).statusCode).toBe(400);
    expect((await match(w.sales.token, { child_ids: ['a'] })).statusCode).toBe(400);
    expect((await match(w.sales.token, { child_ids: 5 })).statusCode).toBe(400);
    expect((await match(w.inbound.token, { child_ids: [1] })).statusCode).toBe(403);
  });
});

describe('GET /outbound/scan from many handhelds at the same moment', () => {
  it('answers each scan its own row, company check, permission and add-back', async () => {
    const alpha = await materialWithStock(t, 'ALPHA', [4, 5, 6, 7]);
    const beta = await materialWithStock(t, 'BETA', [3]);
    const held = await submitOk(t, w.sales.token, [{ base_id: alpha.material.id, quantity: 7 }]); // the row of 7 → 0
    const [four, five, six, seven] = alpha.rows as [StockRowJson, StockRowJson, StockRowJson, StockRowJson];
    const betaRow = beta.rows[0]!;
    const expected: Array<[() => ReturnType<typeof scan>, number, Record<string, unknown>]> = [];
    for (let round = 0; round < 5; round++) {
      expected.push(
        [() => scan(w.op.token, seven.sku, held.id), 200, { id: seven.id, available_quantity: 7, reservation_applied: true }],
        [() => scan(w.op.token, seven.sku), 200, { id: seven.id, available_quantity: 0, reservation_applied: false }],
        [() => scan(w.op.token, four.sku, held.id), 200, { id: four.id, available_quantity: 4, reservation_applied: false }],
        [() => scan(w.admin, five.sku), 200, { id: five.id, available_quantity: 5 }],
        [() => scan(w.op.token, betaRow.sku), 403, { code: 'OTHER_COMPANY', company: 'BETA' }],
        [() => scan(w.admin, betaRow.sku), 200, { id: betaRow.id, available_quantity: 3 }],
        [() => scan(w.admin, betaRow.sku, held.id), 403, { code: 'OTHER_COMPANY' }],
        [() => scan(w.betaMgr.token, six.sku, held.id), 404, {}],
        [() => scan(w.op.token, `${six.sku}-X`), 404, { code: 'NOT_FOUND' }],
        [() => scan(w.sales.token, six.sku), 403, {}],
      );
    }
    const answers = await Promise.all(expected.map(([call]) => call()));
    answers.forEach((answer, index) => {
      const [, status, body] = expected[index]!;
      expect({ index, status: answer.statusCode, body: answer.json() }).toMatchObject({ index, status, body });
    });
    expect(answers[3]!.json()).toHaveProperty('unit_cost');
    expect(answers[0]!.json()).not.toHaveProperty('unit_cost');
  });
});
