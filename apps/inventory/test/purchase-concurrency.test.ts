import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '@wms/platform/testing';
import { createMaterial } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { PURCHASE, type BatchJson } from './purchase-fixtures.js';

/** Real concurrency needs real connections: PostgreSQL only (PGlite runs every transaction in turn). */
describe.skipIf(!usingPostgres())('purchase numbers under concurrent submissions (PostgreSQL)', () => {
  let t: TestInventory;
  let requesters: TestUser[];
  let baseId: number;

  beforeAll(async () => {
    t = await buildTestInventory();
    const mgr = await t.user('WAREHOUSE_MGR', 'ALPHA');
    baseId = (await createMaterial(t, mgr.token, { name: '并发采购件' })).id;
    requesters = [];
    for (let i = 0; i < 20; i++) requesters.push(await t.user('SALES', 'ALPHA'));
  });
  afterAll(() => t.close());

  it('gives 20 simultaneous submissions 20 distinct batch sequences of the day, each with its own item numbers', async () => {
    const responses = await Promise.all(
      requesters.map((requester, i) =>
        t.request('POST', PURCHASE, { token: requester.token, body: { items: [{ base_id: baseId, quantity: 1 }, { base_id: baseId, quantity: i + 1 }] } }),
      ),
    );
    expect(responses.map((response) => response.statusCode)).toEqual(Array(20).fill(201));
    const batches = responses.map((response) => response.json() as BatchJson);
    const sequences = batches.map((batch) => Number(batch.batch_key.split('-')[3]));
    expect(new Set(sequences).size).toBe(20);
    expect([...sequences].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => sequences.reduce((min, s) => Math.min(min, s)) + i));
    for (const batch of batches) {
      expect(batch.requests.map((request) => request.request_no)).toEqual([`${batch.batch_key}-0001`, `${batch.batch_key}-0002`]);
    }
    const next = await t.request('GET', `${PURCHASE}/next-batch-seq`, { token: requesters[0]!.token });
    expect(next.json().next_batch_seq).toBe(Math.max(...sequences) + 1);
  });
});
