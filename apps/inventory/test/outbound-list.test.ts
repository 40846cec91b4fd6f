import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { ledgerCheck } from './ledger.js';
import { approveOk, approvedRequest, materialWithStock, submitOk, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

interface Group {
  outbound_no: string;
  request_id: number;
  applicant_id: number | null;
  outbound_type: string;
  consumer_name: string;
  total_quantity: number;
  items: Array<{ outbound_no: string; applicant_id: number | null; sku: string; quantity: number }>;
}

/** Three executions: two in ALPHA (placed at fixed Beijing times), one in BETA. */
const executions: Record<'sales' | 'use' | 'beta', { outbound_no: string; request_id: number; skus: string[] }> = {} as never;
let materialName = '';

async function executeAll(token: string, requestId: number, lines: Array<{ barcode: string; quantity: number }>, consumer: string) {
  const response = await t.request('POST', '/api/v1/outbound', { token, body: { request_id: requestId, consumer_name: consumer, lines } });
  if (response.statusCode !== 201) throw new Error(response.body);
  return response.json() as { outbound_no: string };
}

useOutboundWorld((built) => ({ t, w } = built));

beforeAll(async () => {
  const resistor = await materialWithStock(t, 'ALPHA', [5, 5]);
  materialName = resistor.material.name;
  const capacitor = await materialWithStock(t, 'ALPHA', [10]);
  const beta = await materialWithStock(t, 'BETA', [10]);

  const salesRequest = await submitOk(t, w.sales.token, [{ base_id: resistor.material.id, quantity: 7 }], { outbound_type: 'SALES' });
  await approveOk(t, w.mgr.token, salesRequest.id);
  const salesSkus = resistor.rows.map((row) => row.sku);
  const sales = await executeAll(w.op.token, salesRequest.id, [
    { barcode: salesSkus[0]!, quantity: 5 },
    { barcode: salesSkus[1]!, quantity: 2 },
  ], '张三');
  executions.sales = { outbound_no: sales.outbound_no, request_id: salesRequest.id, skus: salesSkus };

  const useRequest = await approvedRequest(w, [{ base_id: capacitor.material.id, quantity: 3 }], w.sales2);
  const use = await executeAll(w.mgr.token, useRequest.id, [{ barcode: capacitor.rows[0]!.sku, quantity: 3 }], '李四');
  executions.use = { outbound_no: use.outbound_no, request_id: useRequest.id, skus: [capacitor.rows[0]!.sku] };

  const betaRequest = await submitOk(t, w.betaSales.token, [{ base_id: beta.material.id, quantity: 1 }]);
  await approveOk(t, w.betaMgr.token, betaRequest.id);
  const betaOut = await executeAll(w.betaMgr.token, betaRequest.id, [{ barcode: beta.rows[0]!.sku, quantity: 1 }], '王五');
  executions.beta = { outbound_no: betaOut.outbound_no, request_id: betaRequest.id, skus: [beta.rows[0]!.sku] };

  // 2024-05-02 00:30 Beijing (still May 1st in UTC) and 2024-05-01 23:59:59 Beijing.
  await t.service.deps.database.transaction({ actor: 'test-setup' }, async (tx) => {
    await tx.execute(sql`update trans_outbound set outbound_time = '2024-05-01T16:30:00Z' where outbound_no = ${executions.sales.outbound_no}`);
    await tx.execute(sql`update trans_outbound set outbound_time = '2024-05-01T15:59:59Z' where outbound_no = ${executions.use.outbound_no}`);
    await tx.execute(sql`update trans_outbound set outbound_time = '2024-04-20T02:00:00Z' where outbound_no = ${executions.beta.outbound_no}`);
  });
});

async function list(query: string, token = w.mgr.token) {
  const response = await t.request('GET', `/api/v1/outbound${query}`, { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { items: Group[]; total: number; page: number; limit: number };
}
const numbers = (page: { items: Group[] }) => page.items.map((group) => group.outbound_no);
const advanced = (filters: unknown) => `advancedFilters=${encodeURIComponent(JSON.stringify(filters))}`;

describe('GET /outbound', () => {
  it('groups lines by outbound_no, newest first, each line carrying applicant_id', async () => {
    const page = await list('');
    expect(numbers(page)).toEqual([executions.sales.outbound_no, executions.use.outbound_no]);
    expect(page).toMatchObject({ total: 2, page: 1, limit: 20 });
    const [sales, use] = page.items as [Group, Group];
    expect(sales).toMatchObject({
      request_id: executions.sales.request_id,
      applicant_id: w.sales.id,
      outbound_type: 'SALES',
      consumer_name: '张三',
      total_quantity: 7,
    });
    expect(sales.items.map((item) => [item.sku, item.quantity, item.applicant_id])).toEqual([
      [executions.sales.skus[0], 5, w.sales.id],
      [executions.sales.skus[1], 2, w.sales.id],
    ]);
    expect(use.items).toMatchObject([{ applicant_id: w.sales2.id, quantity: 3 }]);
  });

  it('keeps companies apart; a cross-domain caller may narrow by company', async () => {
    expect(numbers(await list('', w.betaMgr.token))).toEqual([executions.beta.outbound_no]);
    expect((await list('', w.admin)).total).toBe(3);
    expect(numbers(await list('?company=BETA', w.admin))).toEqual([executions.beta.outbound_no]);
    expect(numbers(await list('?company=BETA'))).toEqual(numbers(await list('')));
  });

  it('pages by group, not by line', async () => {
    const first = await list('?limit=1');
    expect(first.items).toHaveLength(1);
    expect(first.items[0]!.items).toHaveLength(2);
    expect(first.total).toBe(2);
    expect(numbers(await list('?limit=1&page=2'))).toEqual([executions.use.outbound_no]);
    expect((await list('?limit=1&page=3')).items).toEqual([]);
  });

  it('searches by keyword within the chosen search_type', async () => {
    expect(numbers(await list(`?keyword=${executions.use.outbound_no}&search_type=outbound_no`))).toEqual([executions.use.outbound_no]);
    expect(numbers(await list(`?keyword=${encodeURIComponent(materialName)}&search_type=material`))).toEqual([executions.sales.outbound_no]);
    // one matching line brings the whole group
    const bySku = await list(`?keyword=${executions.sales.skus[1]}&search_type=sku`);
    expect(bySku.items[0]!.items).toHaveLength(2);
    expect(numbers(await list(`?keyword=${encodeURIComponent('李四')}&search_type=consumer`))).toEqual([executions.use.outbound_no]);
    expect(numbers(await list(`?keyword=${w.op.username}&search_type=operator`))).toEqual([executions.sales.outbound_no]);
    expect(numbers(await list(`?keyword=${encodeURIComponent('张三')}`))).toEqual([executions.sales.outbound_no]);
    expect(numbers(await list(`?keyword=${encodeURIComponent('张三')}&search_type=operator`))).toEqual([]);
    expect((await list('?keyword=%25')).items).toEqual([]);
  });

  it('applies advancedFilters (outbound_type, applicant_id, request_id, base_id, source_table)', async () => {
    expect(numbers(await list(`?${advanced({ outbound_type: 'SALES' })}`))).toEqual([executions.sales.outbound_no]);
    expect(numbers(await list(`?${advanced({ applicant_id: w.sales2.id })}`))).toEqual([executions.use.outbound_no]);
    expect(numbers(await list(`?${advanced({ request_id: executions.sales.request_id })}`))).toEqual([executions.sales.outbound_no]);
    expect((await list(`?${advanced({ source_table: 'stock_semi' })}`)).items).toEqual([]);
    expect((await list(`?${advanced({ unknown_key: 1 })}`)).total).toBe(2);
  });

  it('refuses a malformed advancedFilters or date with 400 naming the field', async () => {
    const bad = ['advancedFilters=%7Bnot-json', advanced({ outbound_type: 'GIFT' }), advanced([1]), advanced({ applicant_id: 'x' })];
    for (const query of bad) {
      const response = await t.request('GET', `/api/v1/outbound?${query}`, { token: w.mgr.token });
      expect(response.statusCode, query).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'advancedFilters' });
    }
    for (const [field, value] of [['start_date', '2024-02-30'], ['end_date', 'yesterday'], ['start_date', '2024-05-01T25:00:00']]) {
      const response = await t.request('GET', `/api/v1/outbound?${field}=${value}`, { token: w.mgr.token });
      expect(response.statusCode, `${field}=${value}`).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
  });

  it('reads a bare date as a Beijing day: the start from 00:00:00, the end through the whole day; each bound alone', async () => {
    expect(numbers(await list('?start_date=2024-05-02'))).toEqual([executions.sales.outbound_no]);
    expect(numbers(await list('?end_date=2024-05-01'))).toEqual([executions.use.outbound_no]);
    expect(numbers(await list('?start_date=2024-05-01&end_date=2024-05-01'))).toEqual([executions.use.outbound_no]);
    expect(numbers(await list('?start_date=2024-05-01&end_date=2024-05-02'))).toHaveLength(2);
    expect((await list('?start_date=2024-05-03')).items).toEqual([]);
    expect((await list('?end_date=2024-04-30')).items).toEqual([]);
  });

  it('uses a datetime bound as it is (Beijing time when it has no offset)', async () => {
    expect(numbers(await list(`?end_date=${encodeURIComponent('2024-05-01T23:59:59+08:00')}`))).toEqual([executions.use.outbound_no]);
    expect((await list(`?end_date=${encodeURIComponent('2024-05-01 23:59:58')}`)).items).toEqual([]);
    expect(numbers(await list(`?start_date=${encodeURIComponent('2024-05-01T16:00:00Z')}`))).toEqual([executions.sales.outbound_no]);
  });

  it('needs outbound_selection or outbound_create:operation', async () => {
    expect((await list('', w.sales.token)).total).toBe(2);
    expect((await list('', w.op.token)).total).toBe(2);
    const forbidden = await t.request('GET', '/api/v1/outbound', { token: w.inbound.token });
    expect(forbidden.statusCode).toBe(403);
    expect((await t.request('GET', '/api/v1/outbound')).statusCode).toBe(401);
  });

  it('keeps the ledger identity after the executions', async () => {
    await ledgerCheck(t);
    const [lines] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from trans_outbound`);
    expect(lines!.n).toBe(4);
  });
});

// last: it adds an execution the listing tests above do not expect
describe('GET /outbound line locations', () => {
  it('shows and filters a line at its stock row`s location, the authority (spec 2.5), once the row has moved', async () => {
    const moved = await materialWithStock(t, 'ALPHA', [4]);
    const request = await approvedRequest(w, [{ base_id: moved.material.id, quantity: 1 }], w.sales);
    const shipped = await executeAll(w.mgr.token, request.id, [{ barcode: moved.rows[0]!.sku, quantity: 1 }], '赵六');
    const relocated = await t.request('PUT', `/api/v1/inbound/stock/${moved.rows[0]!.id}`, { token: w.mgr.token, body: { warehouse_location: 'MOVED/ZONE/9' } });
    expect(relocated.statusCode, relocated.body).toBe(200);
    const found = await list(`?${advanced({ warehouse_location: 'MOVED/ZONE' })}`);
    expect(numbers(found)).toEqual([shipped.outbound_no]);
    expect(found.items[0]!.items[0]).toMatchObject({ warehouse_location: 'MOVED/ZONE/9' });
  });
});
