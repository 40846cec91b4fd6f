import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, idempotencyKeyFor } from '@wms/platform';
import { queryRows, stockIn, type AuditRow } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { materialWithStock, rowState, submitOk, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { postReturn, RETURN_PATH, returnOk, returnTableCounts, shipFromRow } from './returns-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

/** A material of ALPHA with one row of `stock`, of which `shipped` went out in one outbound line. */
async function shipped(stock: number, shippedQty: number, options: Parameters<typeof shipFromRow>[3] = {}) {
  const { material, rows } = await materialWithStock(t, 'ALPHA', [stock]);
  const row = rows[0]!;
  const line = await shipFromRow(w, row, shippedQty, options);
  return { material, row, line };
}

describe('good return', () => {
  it('adds the quantity back to the original row (stock and available) and answers the return with snapshots', async () => {
    const { material, row, line } = await shipped(10, 6);
    expect(await rowState(t, row.id)).toEqual({ stock: 4, available: 4, status: '在库' });

    const result = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 2.5, reason: ' 多发了 ' });

    expect(await rowState(t, row.id)).toEqual({ stock: 6.5, available: 6.5, status: '在库' });
    expect(result.ledger_entry).toBeNull();
    expect(result.reissue_request).toBeNull();
    expect(result.return).toMatchObject({
      outbound_id: line.id,
      outbound_no: line.outbound_no,
      return_type: 'good',
      return_type_label: '良品',
      quantity: 2.5,
      reason: '多发了',
      operator: w.mgr.username,
      operator_id: w.mgr.id,
      company_name: 'ALPHA',
      stock_id: row.id,
      source_table: 'stock_buy',
      base_id: material.id,
      sku: row.sku,
      material_name: material.name,
      spec_model: material.spec_model,
    });
    expect(result.return.time).toBe(result.return.created_at);
  });

  it('is served at /stock/return-from-outbound by the same handler', async () => {
    const { row, line } = await shipped(5, 5);
    const response = await postReturn(t, w.op.token, { outbound_id: line.id, return_type: 'good', quantity: 1 }, '/api/v1/stock/return-from-outbound');
    expect(response.statusCode).toBe(201);
    expect(await rowState(t, row.id)).toEqual({ stock: 1, available: 1, status: '在库' });
  });

  it('is refused with 400 NOT_IN_STOCK when the original row is no longer 在库, and writes nothing', async () => {
    const { row, line } = await shipped(8, 3);
    const frozen = await t.request('POST', `/api/v1/inbound/stock/${row.id}/change-status`, { token: w.mgr.token, body: { status: '冻结' } });
    expect(frozen.statusCode).toBe(200);
    const before = await returnTableCounts(t);

    const response = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1 });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'NOT_IN_STOCK', stock_id: row.id, status: '冻结' });
    expect(response.json().msg).toContain('冻结');
    expect(await rowState(t, row.id)).toEqual({ stock: 5, available: 5, status: '冻结' });
    expect(await returnTableCounts(t)).toEqual(before);
  });

  it('is refused with 400 NOT_IN_STOCK when the original row was deleted, and writes nothing', async () => {
    const { row, line } = await shipped(4, 4);
    const deleted = await t.request('DELETE', `/api/v1/inbound/stock/${row.id}`, { token: w.mgr.token });
    expect(deleted.statusCode).toBe(200);
    const before = await returnTableCounts(t);

    const response = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1 });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'NOT_IN_STOCK', stock_id: row.id });
    expect(response.json().msg).toContain('不存在');
    expect(await returnTableCounts(t)).toEqual(before);
  });
});

describe('defective return', () => {
  it('writes a ledger entry holding the quantity and leaves the stock untouched', async () => {
    const { material, row, line } = await shipped(10, 5);
    const result = await returnOk(t, w.op.token, { outbound_id: line.id, return_type: 'defective', quantity: 2 });

    expect(await rowState(t, row.id)).toEqual({ stock: 5, available: 5, status: '在库' });
    expect(result.return).toMatchObject({ return_type: 'defective', return_type_label: '不良品', quantity: 2 });
    expect(result.ledger_entry).toMatchObject({
      return_id: result.return.id,
      sku: row.sku,
      stock_id: row.id,
      source_table: 'stock_buy',
      base_id: material.id,
      material_name: material.name,
      spec_model: material.spec_model,
      quantity: 2,
      remaining_qty: 2,
      status: '待处理',
      company_name: 'ALPHA',
    });
    // still returnable even when the original row is gone: the defective path never touches it
    const other = await shipped(3, 3);
    await t.request('DELETE', `/api/v1/inbound/stock/${other.row.id}`, { token: w.mgr.token });
    const held = await returnOk(t, w.op.token, { outbound_id: other.line.id, return_type: 'defective', quantity: 3 });
    expect(held.ledger_entry).toMatchObject({ stock_id: other.row.id, sku: other.row.sku, remaining_qty: 3 });
  });

  it('keeps defective quantity out of allocation', async () => {
    const { material, line } = await shipped(5, 5);
    await returnOk(t, w.op.token, { outbound_id: line.id, return_type: 'defective', quantity: 5 });
    const response = await t.request('POST', '/api/v1/outbound/request', {
      token: w.sales.token,
      body: { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 1 }], remark: 'after defective' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 1, remaining: 0 });
  });
});

describe('quantity returnable', () => {
  it('refuses more than the line shipped less earlier returns with 400 QUANTITY_EXCEEDS', async () => {
    const { row, line } = await shipped(10, 5);
    await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 2 });
    await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 1 });
    const before = await returnTableCounts(t);

    const over = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 2.5 });

    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', shipped: 5, returned: 3, returnable: 2 });
    expect(await returnTableCounts(t)).toEqual(before);
    expect(await rowState(t, row.id)).toEqual({ stock: 7, available: 7, status: '在库' });
    const rest = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 2 });
    expect(rest.statusCode).toBe(201);
    const nothingLeft = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 0.001 });
    expect(nothingLeft.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', returnable: 0 });
  });
});

describe('reissue', () => {
  it('creates an approval-free request (status 1) for the original applicant, same type, strictly reserved', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 4]);
    const line = await shipFromRow(w, rows[0]!, 3, { outboundType: 'SALES', consumer: '客户王五' });
    expect(line.applicant_id).toBe(w.sales.id);

    const result = await returnOk(t, w.mgr.token, {
      outbound_id: line.id,
      return_type: 'defective',
      quantity: 3,
      need_reissue: true,
      reissue_qty: 2,
    });

    const reissue = result.reissue_request as Record<string, unknown> & { items_json: Array<Record<string, unknown>> };
    expect(reissue).toMatchObject({
      status: 1,
      applicant_id: w.sales.id,
      company_name: 'ALPHA',
      outbound_type: 'SALES',
      source_return_id: result.return.id,
      approver_id: null,
    });
    expect(reissue.remark).toContain('客户王五');
    expect(reissue.remark).toContain(line.outbound_no);
    // largest available first: the first row has 7 left, the second 4
    expect(reissue.items_json).toEqual([{ base_id: material.id, quantity: 2, stock_id: rows[0]!.id, source_table: 'stock_buy', reserved: true }]);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 7, available: 5, status: '在库' });

    // approval-free: it can be executed at once
    const executed = await t.request('POST', '/api/v1/outbound', {
      token: w.op.token,
      body: { request_id: reissue.id, consumer_name: '客户王五', lines: [{ barcode: rows[0]!.sku, quantity: 2 }] },
    });
    expect(executed.statusCode).toBe(201);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('defaults reissue_qty to the returned quantity and refuses a larger one with 400', async () => {
    const { row, line } = await shipped(10, 4);
    const before = await returnTableCounts(t);
    const larger = await postReturn(t, w.mgr.token, {
      outbound_id: line.id,
      return_type: 'good',
      quantity: 1,
      need_reissue: true,
      reissue_qty: 1.5,
    });
    expect(larger.statusCode).toBe(400);
    expect(larger.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', field: 'reissue_qty' });
    expect(await returnTableCounts(t)).toEqual(before);

    const result = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1, need_reissue: true });
    expect((result.reissue_request as { items_json: Array<{ quantity: number }> }).items_json[0]!.quantity).toBe(1);
    // the good return came back (+1) and the reissue holds it again
    expect(await rowState(t, row.id)).toEqual({ stock: 7, available: 6, status: '在库' });
  });

  it('ignores reissue fields when need_reissue is false', async () => {
    const { line } = await shipped(5, 2);
    const result = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1, need_reissue: false, reissue_qty: 9 });
    expect(result.reissue_request).toBeNull();
  });

  it('takes reissue_applicant_id when given (never the caller)', async () => {
    const { line } = await shipped(10, 2);
    const result = await returnOk(t, w.mgr.token, {
      outbound_id: line.id,
      return_type: 'defective',
      quantity: 1,
      need_reissue: true,
      reissue_applicant_id: w.sales2.id,
    });
    expect(result.reissue_request).toMatchObject({ applicant_id: w.sales2.id, applicant_name: '销售乙' });
    const mine = await t.request('GET', '/api/v1/outbound/my-requests', { token: w.sales2.token });
    expect(mine.json().items.map((request: { id: number }) => request.id)).toContain((result.reissue_request as { id: number }).id);
  });

  it('refuses an applicant that does not exist, or belongs to another company, with 404 and writes nothing', async () => {
    const { row, line } = await shipped(10, 2);
    const before = await returnTableCounts(t);
    for (const applicant of [999999, w.betaSales.id]) {
      const response = await postReturn(t, w.mgr.token, {
        outbound_id: line.id,
        return_type: 'good',
        quantity: 1,
        need_reissue: true,
        reissue_applicant_id: applicant,
      });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', field: 'reissue_applicant_id' });
    }
    expect(await returnTableCounts(t)).toEqual(before);
    expect(await rowState(t, row.id)).toEqual({ stock: 8, available: 8, status: '在库' });
  });

  it('refuses with 400 NO_APPLICANT when the line has no applicant and none is named, and writes nothing', async () => {
    const { row, line } = await shipped(10, 2);
    // a line from before applicant_id existed (spec 2.5: stays null)
    await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
      tx.execute(sql`update trans_outbound set applicant_id = null where id = ${line.id}`),
    );
    const before = await returnTableCounts(t);

    const response = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1, need_reissue: true });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'NO_APPLICANT', field: 'reissue_applicant_id' });
    expect(response.json().msg).toContain('reissue_applicant_id');
    expect(await returnTableCounts(t)).toEqual(before);
    expect(await rowState(t, row.id)).toEqual({ stock: 8, available: 8, status: '在库' });

    const named = await returnOk(t, w.mgr.token, {
      outbound_id: line.id,
      return_type: 'good',
      quantity: 1,
      need_reissue: true,
      reissue_applicant_id: w.sales.id,
    });
    expect(named.reissue_request).toMatchObject({ applicant_id: w.sales.id });
    // and without reissue the same line returns fine
    expect((await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1 })).statusCode).toBe(201);
  });

  it('rolls the whole return back when the reissue is short: no return, no ledger entry, stock unchanged', async () => {
    const { material, row, line } = await shipped(6, 4);
    await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 2 }]); // holds the last 2
    const before = await returnTableCounts(t);
    const stateBefore = await rowState(t, row.id);

    const response = await postReturn(t, w.mgr.token, {
      outbound_id: line.id,
      return_type: 'defective',
      quantity: 3,
      need_reissue: true,
      reissue_qty: 3,
    });

    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 3, remaining: 0 });
    expect(await returnTableCounts(t)).toEqual(before);
    expect(await rowState(t, row.id)).toEqual(stateBefore);

    // once stock arrives the same return goes through
    await stockIn(t, t.adminToken, { base_id: material.id, in_quantity: 3, company_name: 'ALPHA' });
    const again = await postReturn(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 3, need_reissue: true });
    expect(again.statusCode).toBe(201);
    expect(await rowState(t, row.id)).toEqual(stateBefore);
  });
});

describe('access and bad input', () => {
  it('answers 404 for another company’s line and for an unknown line, writing nothing', async () => {
    const { line } = await shipped(5, 2);
    const before = await returnTableCounts(t);
    const other = await postReturn(t, w.betaMgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1 });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('NOT_FOUND');
    const unknown = await postReturn(t, w.mgr.token, { outbound_id: 99999999, return_type: 'good', quantity: 1 });
    expect(unknown.statusCode).toBe(404);
    expect(await returnTableCounts(t)).toEqual(before);
    // the cross-domain admin may act on any company's line
    const admin = await postReturn(t, t.adminToken, { outbound_id: line.id, return_type: 'good', quantity: 1 });
    expect(admin.statusCode).toBe(201);
    expect(admin.json().return.company_name).toBe('ALPHA');
  });

  it('needs outbound_return (403 otherwise, nothing written)', async () => {
    const { line } = await shipped(5, 2);
    const before = await returnTableCounts(t);
    for (const user of [w.sales, w.inbound]) {
      const response = await postReturn(t, user.token, { outbound_id: line.id, return_type: 'good', quantity: 1 });
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN');
    }
    expect((await t.request('POST', RETURN_PATH, { body: { outbound_id: line.id } })).statusCode).toBe(401);
    expect(await returnTableCounts(t)).toEqual(before);
  });

  it('refuses malformed and invalid bodies with 400 and writes nothing', async () => {
    const { row, line } = await shipped(5, 2);
    const before = await returnTableCounts(t);
    const bodies: unknown[] = [
      {},
      { return_type: 'good', quantity: 1 },
      { outbound_id: line.id, return_type: 'good' },
      { outbound_id: line.id, return_type: 'good', quantity: 0 },
      { outbound_id: line.id, return_type: 'good', quantity: -1 },
      { outbound_id: line.id, return_type: 'good', quantity: '1' },
      { outbound_id: line.id, return_type: 'broken', quantity: 1 },
      { outbound_id: 'x', return_type: 'good', quantity: 1 },
      { outbound_id: line.id, return_type: 'good', quantity: 1, need_reissue: 'yes' },
      { outbound_id: line.id, return_type: 'good', quantity: 1, need_reissue: true, reissue_qty: 0 },
      { outbound_id: line.id, return_type: 'good', quantity: 1, need_reissue: true, reissue_applicant_id: 'me' },
    ];
    for (const body of bodies) {
      const response = await t.request('POST', RETURN_PATH, { token: w.mgr.token, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
      expect(response.json().msg).toBeTruthy();
    }
    const malformed = await t.request('POST', RETURN_PATH, {
      token: w.mgr.token,
      body: '{"outbound_id": 1,',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    expect(await returnTableCounts(t)).toEqual(before);
    expect(await rowState(t, row.id)).toEqual({ stock: 3, available: 3, status: '在库' });
  });

  it('holds the idempotency lock: the same return while one is running is 409 LOCK_HELD and writes nothing', async () => {
    const { row, line } = await shipped(5, 2);
    const body = { outbound_id: line.id, return_type: 'good', quantity: 1, reason: '重复提交', need_reissue: false };
    const { locks } = t.service.deps;
    const key = idempotencyKeyFor(w.mgr.id, 'POST', RETURN_PATH, body);
    const held = (await locks.acquire(key, IDEMPOTENCY_TTL_MS)) as { token: string };

    const blocked = await t.request('POST', RETURN_PATH, { token: w.mgr.token, body });
    expect(blocked.statusCode).toBe(409);
    expect(blocked.json().code).toBe('LOCK_HELD');
    expect(await rowState(t, row.id)).toEqual({ stock: 3, available: 3, status: '在库' });

    await locks.release(key, held.token);
    expect((await t.request('POST', RETURN_PATH, { token: w.mgr.token, body })).statusCode).toBe(201);
    expect(await rowState(t, row.id)).toEqual({ stock: 4, available: 4, status: '在库' });
  });

  it('audits the return and the ledger entry with the request URL', async () => {
    const { line } = await shipped(5, 2);
    const result = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 1, need_reissue: true });
    const audits = await queryRows<AuditRow & { table_name: string }>(
      t,
      sql`select module, action, table_name, target_id, target_name, username, company_name, request_url, details
            from audit_logs
           where (table_name = 'trans_return' and target_id = ${String(result.return.id)})
              or (table_name = 'trans_defective_goods' and target_id = ${String(result.ledger_entry!.id)})
              or (table_name = 'outbound_requests' and target_id = ${String((result.reissue_request as { id: number }).id)})
           order by id`,
    );
    expect(audits.map((audit) => [audit.table_name, audit.module, audit.action])).toEqual([
      ['trans_return', '退货管理', 'CREATE'],
      ['trans_defective_goods', '不良品管理', 'CREATE'],
      ['outbound_requests', '出库管理', 'CREATE'],
    ]);
    for (const audit of audits) {
      expect(audit).toMatchObject({ username: w.mgr.username, company_name: 'ALPHA', request_url: RETURN_PATH });
    }
    expect(audits[0]!.target_name).toBe(line.outbound_no);
    expect(audits[1]!.target_name).toBe(line.sku);
  });
});
