import { describe, expect, it } from 'vitest';
import { createMaterial, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { countPurchases, purchaseCast, submitPurchase, type PurchaseCast } from './purchase-fixtures.js';

let t: TestInventory;
let c: PurchaseCast;
useTestApp(purchaseCast, (built) => ({ t, w: c } = built));

describe('items named by name + spec_model: the refusal lists what was found (contract §8)', () => {
  it('names every material of several matches in msg, so that the caller can pick a base_id', async () => {
    const first = await createMaterial(t, c.mgr.token, { name: '双胞胎件', spec_model: 'T-1', category: 'ALPHA/甲' });
    const second = await createMaterial(t, c.mgr.token, { name: '双胞胎件', spec_model: 'T-1', category: 'ALPHA/乙' });
    const before = await countPurchases(t);
    const response = await submitPurchase(t, c.sales.token, [{ name: '双胞胎件', spec_model: 'T-1', quantity: 1 }]);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ code: 'VALIDATION_FAILED', reason: 'ambiguous' });
    expect(body.msg).toContain(`ID ${first.id}`);
    expect(body.msg).toContain(`ID ${second.id}`);
    expect(body.msg).toContain('ALPHA/乙');
    expect(await countPurchases(t)).toBe(before);
  });

  it('lists near names when no material has exactly that name (another case, a longer name)', async () => {
    const cable = await createMaterial(t, c.mgr.token, { name: 'USB线缆', spec_model: 'Type-C 1m' });
    const longer = await createMaterial(t, c.mgr.token, { name: 'usb线缆（加长）', spec_model: 'Type-C 3m' });
    const response = await submitPurchase(t, c.sales.token, [{ name: 'usb线缆', spec_model: 'Type-C 1m', quantity: 2 }]);
    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ code: 'VALIDATION_FAILED', reason: 'no_match', field: 'items[0].name' });
    expect(body.candidates.map((candidate: { base_id: number }) => candidate.base_id)).toEqual([cable.id, longer.id]);
    expect(body.msg).toContain(`ID ${cable.id}`);

    const nothing = await submitPurchase(t, c.sales.token, [{ name: '完全不存在的物料', quantity: 2 }]);
    expect(nothing.statusCode).toBe(400);
    expect(nothing.json()).toMatchObject({ reason: 'no_match', candidates: [] });
    expect(nothing.json().msg).toContain('没有同名或相近名称的物料');
  });

  it('lists the other specs of the same name with their ids', async () => {
    const bolt = await createMaterial(t, c.mgr.token, { name: '六角螺栓', spec_model: 'M6x20' });
    const response = await submitPurchase(t, c.sales.token, [{ name: '六角螺栓', spec_model: 'M6X20', quantity: 5 }]);
    expect(response.statusCode).toBe(400);
    expect(response.json().msg).toContain(`ID ${bolt.id}`);
    expect(response.json().msg).toContain('M6x20');
    expect(response.json().candidates).toEqual([expect.objectContaining({ base_id: bolt.id })]);
  });
});
