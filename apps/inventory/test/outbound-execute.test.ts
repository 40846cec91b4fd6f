import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows, type StockRowJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import {
  approveOk,
  approvedRequest,
  countRows,
  materialWithStock,
  rowState,
  storedRequest,
  submitOk,
  useOutboundWorld,
  type OutboundWorld,
} from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

type Line = { barcode: string; quantity: number };
const execute = (token: string, body: unknown) => t.request('POST', '/api/v1/outbound', { token, body });
const executeBody = (requestId: number, lines: Line[], consumer = '张三') => ({ request_id: requestId, consumer_name: consumer, lines });

/** Asserts nothing of an execution was written: request still approved and reserved, rows and lines as before. */
async function expectNothingWritten(requestId: number, rowIds: number[], snapshot: () => Promise<unknown>, before: unknown) {
  const request = await storedRequest(t, requestId);
  expect(request.status).toBe(1);
  expect(request.items_json.every((line) => line.reserved)).toBe(true);
  expect(await snapshot()).toEqual(before);
  expect(rowIds.length).toBeGreaterThan(0);
}

describe('executing an approved request by scan', () => {
  it('releases the reservation, deducts the scanned quantities and writes one line per row under one outbound_no', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 6]);
    const [big, small] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 12 }]);
    const linesBefore = await countRows(t, 'trans_outbound');

    const response = await execute(w.op.token, executeBody(request.id, [
      { barcode: big.sku, quantity: 10 },
      { barcode: small.sku, quantity: 2 },
    ]));

    expect(response.statusCode).toBe(201);
    const result = response.json();
    expect(result.outbound_no).toMatch(/^CK\d{8}\d{6,}$/);
    expect(result.request_id).toBe(request.id);
    expect(result.lines).toHaveLength(2);
    for (const line of result.lines) {
      expect(line).toMatchObject({
        outbound_no: result.outbound_no,
        request_id: request.id,
        applicant_id: w.sales.id,
        consumer_name: '张三',
        outbound_type: 'USE',
        operator: w.op.username,
        company_name: 'ALPHA',
        base_id: material.id,
        material_name: material.name,
        source_table: 'stock_buy',
      });
    }
    expect(result.lines.map((line: { stock_id: number; quantity: number; sku: string }) => [line.stock_id, line.sku, line.quantity])).toEqual([
      [big.id, big.sku, 10],
      [small.id, small.sku, 2],
    ]);
    expect(await rowState(t, big.id)).toMatchObject({ stock: 0, available: 0 });
    expect(await rowState(t, small.id)).toMatchObject({ stock: 4, available: 4 });
    expect(await countRows(t, 'trans_outbound')).toBe(linesBefore + 2);

    const stored = await storedRequest(t, request.id);
    expect(stored.status).toBe(3);
    expect(stored.items_json.every((line) => !line.reserved)).toBe(true);
    const detail = (await t.request('GET', `/api/v1/outbound/request/${request.id}`, { token: w.sales.token })).json();
    expect(detail).toMatchObject({ status: 3, status_label: '已出库', executed_at: expect.any(String) });
  });

  it('releases what was reserved and not scanned', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [8]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 5 }]);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 8, available: 3 });
    const response = await execute(w.op.token, executeBody(request.id, [{ barcode: rows[0]!.sku, quantity: 3 }]));
    expect(response.statusCode).toBe(201);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 5, available: 5 });
  });

  it('accepts another 在库 row of the same material in place of the allocated one, and sums repeated scans', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [9, 4]);
    const [allocated, standIn] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 4 }]);
    expect(request.items.map((line) => line.stock_id)).toEqual([allocated.id]);

    const response = await execute(w.mgr.token, executeBody(request.id, [
      { barcode: standIn.sku, quantity: 1.5 },
      { barcode: standIn.sku, quantity: 2.5 },
    ]));
    expect(response.statusCode).toBe(201);
    expect(response.json().lines).toMatchObject([{ stock_id: standIn.id, quantity: 4 }]);
    expect(await rowState(t, allocated.id)).toMatchObject({ stock: 9, available: 9 });
    expect(await rowState(t, standIn.id)).toMatchObject({ stock: 0, available: 0 });
  });

  it("leaves other requests' reservations on a shared row untouched", async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const row = rows[0]!;
    const first = await approvedRequest(w, [{ base_id: material.id, quantity: 6 }]);
    await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 4 }]);
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 0 });
    expect((await execute(w.op.token, executeBody(first.id, [{ barcode: row.sku, quantity: 6 }]))).statusCode).toBe(201);
    expect(await rowState(t, row.id)).toMatchObject({ stock: 4, available: 0 });
  });

  it('refuses a scan that would take a row below zero available (400 STOCK_SHORTAGE) and writes nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [6, 5]);
    const [six, five] = rows as [(typeof rows)[0], (typeof rows)[0]];
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 6 }]); // six → 0
    await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 4 }]); // five → 1
    const snapshot = async () => [await rowState(t, six.id), await rowState(t, five.id), await countRows(t, 'trans_outbound')];
    const before = await snapshot();

    const response = await execute(w.op.token, executeBody(request.id, [{ barcode: five.sku, quantity: 2 }]));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 2, remaining: 1 });
    await expectNothingWritten(request.id, [six.id, five.id], snapshot, before);
  });

  it('refuses more than requested per material (400 QUANTITY_EXCEEDS) and writes nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 10]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 3 }]);
    const snapshot = async () => [await rowState(t, rows[0]!.id), await rowState(t, rows[1]!.id), await countRows(t, 'trans_outbound')];
    const before = await snapshot();
    const response = await execute(w.op.token, executeBody(request.id, [
      { barcode: rows[0]!.sku, quantity: 2 },
      { barcode: rows[1]!.sku, quantity: 2 },
    ]));
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', base_id: material.id, requested: 3, scanned: 4 });
    await expectNothingWritten(request.id, [rows[0]!.id], snapshot, before);
  });

  it('refuses a row of a material the request does not name, a row not 在库, an unknown or foreign barcode', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 3]);
    const unrelated = await materialWithStock(t, 'ALPHA', [10]);
    const beta = await materialWithStock(t, 'BETA', [10]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 2 }]);
    await t.request('POST', `/api/v1/inbound/stock/${rows[0]!.id}/change-status`, { token: w.admin, body: { status: '冻结' } });
    const snapshot = async () => [await rowState(t, rows[0]!.id), await rowState(t, unrelated.rows[0]!.id), await countRows(t, 'trans_outbound')];
    const before = await snapshot();

    const cases: Array<[Line, number, Record<string, unknown>]> = [
      [{ barcode: unrelated.rows[0]!.sku, quantity: 1 }, 400, { code: 'VALIDATION_FAILED', base_id: unrelated.material.id }],
      [{ barcode: rows[0]!.sku, quantity: 1 }, 400, { code: 'NOT_IN_STOCK', status: '冻结' }],
      [{ barcode: 'NO-SUCH-CODE', quantity: 1 }, 404, { code: 'NOT_FOUND' }],
      [{ barcode: beta.rows[0]!.sku, quantity: 1 }, 403, { code: 'OTHER_COMPANY', company: 'BETA' }],
    ];
    for (const [line, status, body] of cases) {
      const response = await execute(w.op.token, executeBody(request.id, [{ barcode: rows[1]!.sku, quantity: 1 }, line]));
      expect(response.statusCode, line.barcode).toBe(status);
      expect(response.json()).toMatchObject(body);
      expect(response.json().msg).toEqual(expect.any(String));
    }
    await expectNothingWritten(request.id, [rows[0]!.id], snapshot, before);
  });

  it('takes nothing of a multi-line scan when one of its rows is not 在库 or cannot give, whichever row it is', async () => {
    const stock = [await materialWithStock(t, 'ALPHA', [10]), await materialWithStock(t, 'ALPHA', [10, 3]), await materialWithStock(t, 'ALPHA', [10])];
    const [first, allocated, standIn, last] = stock.flatMap(({ rows }) => rows) as [StockRowJson, StockRowJson, StockRowJson, StockRowJson];
    const request = await approvedRequest(w, stock.map(({ material }) => ({ base_id: material.id, quantity: 4 })));
    expect(request.items.map((line) => line.stock_id)).toEqual([first.id, allocated.id, last.id]);
    const touched = [first, allocated, standIn, last];
    const snapshot = async () => [...(await Promise.all(touched.map((row) => rowState(t, row.id)))), await countRows(t, 'trans_outbound')];
    const scanOf = (...rows: StockRowJson[]) => rows.map((row) => ({ barcode: row.sku, quantity: 4 }));

    // The last row in id order is frozen: the rows before it would have been taken one by one.
    await t.request('POST', `/api/v1/inbound/stock/${last.id}/change-status`, { token: w.admin, body: { status: '冻结' } });
    const frozen = await snapshot();
    const refused = await execute(w.op.token, executeBody(request.id, scanOf(first, allocated, last)));
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'NOT_IN_STOCK', barcode: last.sku, status: '冻结' });
    await expectNothingWritten(request.id, touched.map((row) => row.id), snapshot, frozen);
    await t.request('POST', `/api/v1/inbound/stock/${last.id}/change-status`, { token: w.admin, body: { status: '在库' } });

    // A stand-in in the middle holds 3 of the 4 scanned: the rows on both sides could give, none does.
    const before = await snapshot();
    const short = await execute(w.op.token, executeBody(request.id, scanOf(last, standIn, first)));
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ code: 'STOCK_SHORTAGE', barcode: standIn.sku, needed: 4, remaining: 3 });
    await expectNothingWritten(request.id, touched.map((row) => row.id), snapshot, before);
  });

  it('executes several materials scanned on other rows than the allocated ones: releases all, takes only what was scanned', async () => {
    const a = await materialWithStock(t, 'ALPHA', [9, 4]);
    const b = await materialWithStock(t, 'ALPHA', [5, 5]);
    const c = await materialWithStock(t, 'ALPHA', [6]);
    const request = await approvedRequest(w, [
      { base_id: a.material.id, quantity: 4 },
      { base_id: b.material.id, quantity: 3 },
      { base_id: c.material.id, quantity: 2 },
    ]);
    expect(request.items.map((line) => line.stock_id)).toEqual([a.rows[0]!.id, b.rows[0]!.id, c.rows[0]!.id]);
    const [mark] = await queryRows<{ id: number }>(t, sql`select coalesce(max(id), 0)::int as id from audit_logs`);

    const response = await execute(w.op.token, executeBody(request.id, [
      { barcode: c.rows[0]!.sku, quantity: 2 },
      { barcode: b.rows[1]!.sku, quantity: 2 },
      { barcode: a.rows[1]!.sku, quantity: 3 },
      { barcode: b.rows[0]!.sku, quantity: 1 },
    ]));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().lines.map((line: { stock_id: number; quantity: number }) => [line.stock_id, line.quantity])).toEqual([
      [a.rows[1]!.id, 3],
      [b.rows[0]!.id, 1],
      [b.rows[1]!.id, 2],
      [c.rows[0]!.id, 2],
    ]);
    expect(await rowState(t, a.rows[0]!.id)).toMatchObject({ stock: 9, available: 9 }); // allocated, not scanned: released
    expect(await rowState(t, a.rows[1]!.id)).toMatchObject({ stock: 1, available: 1 }); // stand-in, 1 of 4 not scanned
    expect(await rowState(t, b.rows[0]!.id)).toMatchObject({ stock: 4, available: 4 });
    expect(await rowState(t, b.rows[1]!.id)).toMatchObject({ stock: 3, available: 3 });
    expect(await rowState(t, c.rows[0]!.id)).toMatchObject({ stock: 4, available: 4 });
    expect((await storedRequest(t, request.id)).items_json.every((line) => !line.reserved)).toBe(true);
    // One stock audit record per row released and one per row taken, as when each was its own statement.
    const audited = await queryRows<{ target_id: string; n: number }>(
      t,
      sql`select target_id, count(*)::int as n from audit_logs
           where id > ${mark!.id} and table_name = 'stock_rows' and action = 'UPDATE' and username = ${w.op.username}
           group by target_id`,
    );
    expect(Object.fromEntries(audited.map((record) => [Number(record.target_id), record.n]))).toEqual({
      [a.rows[0]!.id]: 1,
      [a.rows[1]!.id]: 1,
      [b.rows[0]!.id]: 2,
      [b.rows[1]!.id]: 1,
      [c.rows[0]!.id]: 2,
    });
  });

  it('executes only from status 1, once', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [20]);
    const sku = rows[0]!.sku;
    const pending = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
    const notYet = await execute(w.op.token, executeBody(pending.id, [{ barcode: sku, quantity: 1 }]));
    expect(notYet.statusCode).toBe(400);
    expect(notYet.json().code).toBe('STATUS_NOT_ALLOWED');

    await approveOk(t, w.mgr.token, pending.id);
    expect((await execute(w.op.token, executeBody(pending.id, [{ barcode: sku, quantity: 1 }]))).statusCode).toBe(201);
    const twice = await execute(w.op.token, executeBody(pending.id, [{ barcode: sku, quantity: 1 }], '另一人'));
    expect(twice.statusCode).toBe(400);
    expect(twice.json().code).toBe('STATUS_NOT_ALLOWED');

    const closed = await approvedRequest(w, [{ base_id: material.id, quantity: 1 }]);
    await t.request('POST', `/api/v1/outbound/request/${closed.id}/close`, { token: w.op.token });
    expect((await execute(w.op.token, executeBody(closed.id, [{ barcode: sku, quantity: 1 }]))).json().code).toBe('STATUS_NOT_ALLOWED');
    // An executed request can no longer be withdrawn or closed.
    expect((await t.request('POST', `/api/v1/outbound/request/${pending.id}/withdraw`, { token: w.sales.token })).json().code).toBe('STATUS_NOT_ALLOWED');
    expect((await t.request('POST', `/api/v1/outbound/request/${pending.id}/close`, { token: w.op.token })).json().code).toBe('STATUS_NOT_ALLOWED');
  });

  it('refuses a missing request_id and bad input with 400, and writes nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 2 }]);
    const sku = rows[0]!.sku;
    const snapshot = async () => [await rowState(t, rows[0]!.id), await countRows(t, 'trans_outbound')];
    const before = await snapshot();

    const missing = await execute(w.op.token, { consumer_name: 'x', lines: [{ barcode: sku, quantity: 1 }] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'request_id' });

    const bodies: unknown[] = [
      { request_id: request.id, lines: [] },
      { request_id: request.id },
      { request_id: String(request.id), lines: [{ barcode: sku, quantity: 1 }] },
      { request_id: request.id, lines: [{ barcode: sku, quantity: 0 }] },
      { request_id: request.id, lines: [{ barcode: sku, quantity: -1 }] },
      { request_id: request.id, lines: [{ barcode: sku, quantity: '1' }] },
      { request_id: request.id, lines: [{ barcode: '', quantity: 1 }] },
      { request_id: request.id, lines: [{ barcode: '   ', quantity: 1 }] },
    ];
    for (const body of bodies) {
      const response = await execute(w.op.token, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    const malformed = await t.request('POST', '/api/v1/outbound', {
      token: w.op.token,
      body: '{"request_id": ',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    await expectNothingWritten(request.id, [rows[0]!.id], snapshot, before);
  });

  it('needs outbound_create:operation; another company request is 404', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 1 }]);
    const body = executeBody(request.id, [{ barcode: rows[0]!.sku, quantity: 1 }]);
    for (const token of [w.sales.token, w.inbound.token]) {
      const response = await execute(token, body);
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN');
    }
    expect((await execute(w.betaMgr.token, body)).statusCode).toBe(404);
    expect((await t.request('POST', '/api/v1/outbound', { body })).statusCode).toBe(401);
    expect((await storedRequest(t, request.id)).status).toBe(1);
  });

  it('runs the same call sent twice at once only once (idempotency lock, then the status guard)', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 2 }]);
    const body = executeBody(request.id, [{ barcode: rows[0]!.sku, quantity: 2 }]);
    const responses = await Promise.all([execute(w.op.token, body), execute(w.op.token, body)]);
    // The second call meets the held lock (409) or, if the first already answered, the executed request (400).
    const codes = responses.map((response) => (response.statusCode === 201 ? 'OK' : response.json().code)).sort();
    expect([['LOCK_HELD', 'OK'], ['OK', 'STATUS_NOT_ALLOWED']]).toContainEqual(codes);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 8, available: 8 });
  });

  it('records audit entries under 出库管理 for the lines and the request', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await approvedRequest(w, [{ base_id: material.id, quantity: 1 }]);
    const result = (await execute(w.op.token, executeBody(request.id, [{ barcode: rows[0]!.sku, quantity: 1 }]))).json();
    const audit = await queryRows<{ table_name: string; module: string; action: string; target_name: string | null; username: string }>(
      t,
      sql`select table_name, module, action, target_name, username from audit_logs
           where (table_name = 'trans_outbound' and target_name = ${result.outbound_no})
              or (table_name = 'outbound_requests' and target_id = ${String(request.id)} and action = 'UPDATE')
           order by id`,
    );
    expect(audit).toEqual(
      expect.arrayContaining([
        { table_name: 'trans_outbound', module: '出库管理', action: 'CREATE', target_name: result.outbound_no, username: w.op.username },
        expect.objectContaining({ table_name: 'outbound_requests', module: '出库管理', action: 'UPDATE', username: w.op.username }),
      ]),
    );
  });
});
