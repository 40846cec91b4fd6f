import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createMaterial, queryRows, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { purchaseCast, submitOk, submitPurchase, type PurchaseCast } from './purchase-fixtures.js';

let t: TestInventory;
let c: PurchaseCast;
useTestApp(purchaseCast, (built) => ({ t, w: c } = built));

const SUPPLIERS = '/api/v1/suppliers';

async function createOk(token: string, body: Record<string, unknown>) {
  const response = await t.request('POST', SUPPLIERS, { token, body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as { id: number; name: string; company_name: string; [field: string]: unknown };
}

const countSuppliers = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from suppliers`))[0]!.n;

describe('suppliers', () => {
  it('creates, reads, updates and deletes a supplier of the caller’s company', async () => {
    const created = await createOk(c.mgr.token, { name: ' 华东电子 ', contact: '王经理 13800000000', lead_time_days: 7, remark: '月结' });
    expect(created).toMatchObject({ name: '华东电子', contact: '王经理 13800000000', lead_time_days: 7, remark: '月结', company_name: 'ALPHA' });
    expect((await t.request('GET', `${SUPPLIERS}/${created.id}`, { token: c.sales.token })).json()).toEqual(created);
    const updated = await t.request('PUT', `${SUPPLIERS}/${created.id}`, { token: c.mgr.token, body: { lead_time_days: null, contact: null } });
    expect(updated.json()).toMatchObject({ name: '华东电子', contact: '', lead_time_days: null, remark: '月结' });
    const list = await t.request('GET', `${SUPPLIERS}?keyword=华东`, { token: c.sales.token });
    expect(list.json()).toMatchObject({ total: 1, items: [{ id: created.id }] });
    expect((await t.request('DELETE', `${SUPPLIERS}/${created.id}`, { token: c.mgr.token })).json()).toEqual({ id: created.id, deleted: true });
    expect((await t.request('GET', `${SUPPLIERS}/${created.id}`, { token: c.mgr.token })).statusCode).toBe(404);
    const audit = await queryRows<{ module: string; action: string }>(t, sql`select module, action from audit_logs where table_name = 'suppliers' and target_id = ${String(created.id)} order by id`);
    expect(audit.map((row) => row.module)).toEqual(['供应商管理', '供应商管理', '供应商管理']);
  });

  it('keeps names unique per company (409), isolates companies (404) and needs inbound_purchase:operation to write', async () => {
    const alpha = await createOk(c.mgr.token, { name: '共用名称' });
    const beta = await createOk(c.betaMgr.token, { name: '共用名称' });
    expect(beta.company_name).toBe('BETA');
    const duplicate = await t.request('POST', SUPPLIERS, { token: c.mgr.token, body: { name: '共用名称' } });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json()).toMatchObject({ code: 'DUPLICATE', field: 'name' });
    const other = await createOk(c.mgr.token, { name: '另一家' });
    const rename = await t.request('PUT', `${SUPPLIERS}/${other.id}`, { token: c.mgr.token, body: { name: '共用名称' } });
    expect(rename.statusCode).toBe(409);

    expect((await t.request('GET', `${SUPPLIERS}/${beta.id}`, { token: c.mgr.token })).statusCode).toBe(404);
    expect((await t.request('PUT', `${SUPPLIERS}/${beta.id}`, { token: c.mgr.token, body: { remark: 'x' } })).statusCode).toBe(404);
    expect((await t.request('DELETE', `${SUPPLIERS}/${beta.id}`, { token: c.mgr.token })).statusCode).toBe(404);
    const alphaList = (await t.request('GET', `${SUPPLIERS}?limit=200`, { token: c.sales.token })).json().items as Array<{ id: number }>;
    expect(alphaList.map((supplier) => supplier.id)).toContain(alpha.id);
    expect(alphaList.map((supplier) => supplier.id)).not.toContain(beta.id);

    const before = await countSuppliers();
    for (const token of [c.sales.token, c.inbound.token]) {
      expect((await t.request('POST', SUPPLIERS, { token, body: { name: '无权新建' } })).statusCode).toBe(403);
      expect((await t.request('PUT', `${SUPPLIERS}/${alpha.id}`, { token, body: { remark: 'x' } })).statusCode).toBe(403);
      expect((await t.request('DELETE', `${SUPPLIERS}/${alpha.id}`, { token })).statusCode).toBe(403);
    }
    // a cross-domain caller names the company
    const admin = await t.request('POST', SUPPLIERS, { token: t.adminToken, body: { name: '无公司' } });
    expect(admin.statusCode).toBe(400);
    expect(admin.json().code).toBe('COMPANY_REQUIRED');
    expect(await countSuppliers()).toBe(before);
    expect((await createOk(t.adminToken, { name: '管理员建', company_name: 'BETA' })).company_name).toBe('BETA');
  });

  it('refuses bad bodies with 400 and writes nothing', async () => {
    const supplier = await createOk(c.mgr.token, { name: '校验供应商' });
    const before = await countSuppliers();
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x', lead_time_days: -1 }, { name: 'x', lead_time_days: 1.5 }, { name: 'x'.repeat(201) }]) {
      const response = await t.request('POST', SUPPLIERS, { token: c.mgr.token, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await t.request('PUT', `${SUPPLIERS}/${supplier.id}`, { token: c.mgr.token, body: { lead_time_days: '3' } })).statusCode).toBe(400);
    expect(await countSuppliers()).toBe(before);
  });

  it('is named on purchase items of its own company, and cannot be deleted while they use it', async () => {
    const material = await createMaterial(t, c.mgr.token, { name: '供应商物料' });
    const supplier = await createOk(c.mgr.token, { name: '在用供应商', lead_time_days: 5 });
    const betaSupplier = await createOk(c.betaMgr.token, { name: '别家供应商' });
    const batch = await submitOk(t, c.sales.token, [{ base_id: material.id, quantity: 2, supplier_id: supplier.id, expected_date: '2031-05-01' }]);
    expect(batch.requests[0]).toMatchObject({ supplier_id: supplier.id, supplier_name: '在用供应商', expected_date: '2031-05-01' });
    const foreign = await submitPurchase(t, c.sales.token, [{ base_id: material.id, quantity: 2, supplier_id: betaSupplier.id }]);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'NOT_FOUND', field: 'items[0].supplier_id' });
    const refused = await t.request('DELETE', `${SUPPLIERS}/${supplier.id}`, { token: c.mgr.token });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'IN_USE' });
    expect((await t.request('GET', `${SUPPLIERS}/${supplier.id}`, { token: c.mgr.token })).statusCode).toBe(200);
  });
});
