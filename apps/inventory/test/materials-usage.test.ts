import { describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import { materialWithStock, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { returnOk, shipFromRow } from './returns-fixtures.js';

const BASE = '/api/v1/inbound/base';

let t: TestInventory;
let w: OutboundWorld;
useOutboundWorld((built) => ({ t, w } = built));

describe('material delete while defective goods of it are held', () => {
  it('refuses with IN_USE while a ledger entry is 待处理, even after its stock row is gone', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5]);
    const line = await shipFromRow(w, rows[0]!, 5);
    const { ledger_entry: entry } = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 5 });
    expect((await t.request('DELETE', `/api/v1/inbound/stock/${rows[0]!.id}`, { token: w.mgr.token })).statusCode).toBe(200);

    const refused = await t.request('DELETE', `${BASE}/${material.id}`, { token: w.mgr.token });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'IN_USE', msg: expect.stringContaining('不良品台账') });
    expect((await t.request('GET', `${BASE}/${material.id}`, { token: w.mgr.token })).statusCode).toBe(200);
    expect(entry).toMatchObject({ base_id: material.id, status: '待处理' });
  });
});
