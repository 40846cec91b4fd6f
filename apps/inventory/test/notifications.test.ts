import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, queryRows, stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { approveOk, materialWithStock, submitOk, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { eventually, returnOk, setEmail, shipFromRow } from './returns-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built));

interface OutboxRow {
  id: number;
  event_id: string;
  kind: string;
  payload: Record<string, unknown>;
  status: string;
  attempts: number;
  last_error: string | null;
  delivered_at: string | null;
}

const outboxAfter = (id: number) =>
  queryRows<OutboxRow>(
    t,
    sql`select id::int, event_id::text, kind, payload, status, attempts, last_error, delivered_at from notification_outbox where id > ${id} order by id`,
  );
const lastOutboxId = async () => (await queryRows<{ id: number }>(t, sql`select coalesce(max(id), 0)::int as id from notification_outbox`))[0]!.id;

describe('notification outbox', () => {
  it('writes one stock-in message with the contract payload in the stock-in transaction', async () => {
    const material = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品/控制器' });
    const since = await lastOutboxId();
    const row = await stockIn(t, w.inbound.token, {
      source_table: 'stock_product',
      base_id: material.id,
      in_quantity: 1,
      serial_number: 'SN-OUTBOX-1',
      in_date: '2025-04-01',
    });

    const messages = await outboxAfter(since);
    expect(messages).toHaveLength(1);
    const [message] = messages as [OutboxRow];
    expect(message).toMatchObject({ kind: 'stock-in', status: 'pending', attempts: 0, last_error: null, delivered_at: null });
    expect(message.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(message.payload).toEqual({
      event_id: message.event_id,
      company_name: 'ALPHA',
      operator: w.inbound.username,
      source_table: 'stock_product',
      stock_id: row.id,
      sku: row.sku,
      serial_number: 'SN-OUTBOX-1',
      base_id: material.id,
      material_name: material.name,
      category: 'ALPHA/成品/控制器',
      quantity: 1,
      in_date: '2025-04-01',
    });
  });

  it('writes no message when the stock-in is refused', async () => {
    const material = await createMaterial(t, w.mgr.token);
    await stockIn(t, w.inbound.token, { base_id: material.id, sku: 'OUTBOX-DUP' });
    const since = await lastOutboxId();
    const duplicate = await t.request('POST', '/api/v1/inbound/stock', {
      token: w.inbound.token,
      body: { source_table: 'stock_buy', base_id: material.id, in_quantity: 1, sku: 'OUTBOX-DUP' },
    });
    expect(duplicate.statusCode).toBe(409);
    const unknown = await t.request('POST', '/api/v1/inbound/stock', {
      token: w.inbound.token,
      body: { source_table: 'stock_buy', base_id: 99999999, in_quantity: 1 },
    });
    expect(unknown.statusCode).toBe(404);
    expect(await outboxAfter(since)).toEqual([]);
  });

  it('writes one outbound message naming the scanner, the type and every scanned row', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5, 4], { source_table: 'stock_product' });
    const submitted = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 7 }], { outbound_type: 'PRODUCTION' });
    await approveOk(t, w.mgr.token, submitted.id);
    const since = await lastOutboxId();
    const executed = await t.request('POST', '/api/v1/outbound', {
      token: w.op.token,
      body: { request_id: submitted.id, consumer_name: '产线', lines: [{ barcode: rows[0]!.sku, quantity: 5 }, { barcode: rows[1]!.sku, quantity: 2 }] },
    });
    expect(executed.statusCode).toBe(201);

    const messages = await outboxAfter(since);
    expect(messages).toHaveLength(1);
    const [message] = messages as [OutboxRow];
    expect(message.kind).toBe('outbound');
    expect(message.payload).toEqual({
      event_id: message.event_id,
      company_name: 'ALPHA',
      operator: w.op.username,
      outbound_type: 'PRODUCTION',
      outbound_no: executed.json().outbound_no,
      items: [
        { stock_id: rows[0]!.id, sku: rows[0]!.sku, serial_number: rows[0]!.serial_number, quantity: 5 },
        { stock_id: rows[1]!.id, sku: rows[1]!.sku, serial_number: rows[1]!.serial_number, quantity: 2 },
      ],
    });
  });

  it('writes no message when the execution fails, and none for returns, restocks or requests', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5]);
    const submitted = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 2 }]);
    await approveOk(t, w.mgr.token, submitted.id);
    const since = await lastOutboxId();
    const over = await t.request('POST', '/api/v1/outbound', {
      token: w.op.token,
      body: { request_id: submitted.id, lines: [{ barcode: rows[0]!.sku, quantity: 3 }] },
    });
    expect(over.statusCode).toBe(400);
    expect(await outboxAfter(since)).toEqual([]);

    const line = await shipFromRow(w, rows[0]!, 1);
    const afterShip = await lastOutboxId();
    const returned = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 1, need_reissue: true });
    await t.request('POST', `/api/v1/inbound/stock/defective/${returned.ledger_entry!.id}/restock`, { token: w.mgr.token, body: { quantity: 1 } });
    expect(await outboxAfter(afterShip)).toEqual([]);
  });
});

describe('GET /integrations/outbox', () => {
  it('narrows to one company with `company` (spec 2.1), on the message’s company_name', async () => {
    const betaMgr = await t.user('WAREHOUSE_MGR', 'BETA');
    const alphaMaterial = await createMaterial(t, w.mgr.token);
    const betaMaterial = await createMaterial(t, betaMgr.token, { category: 'BETA/电子/电阻' });
    await stockIn(t, w.inbound.token, { base_id: alphaMaterial.id });
    await stockIn(t, betaMgr.token, { base_id: betaMaterial.id });

    const companiesOf = async (query: string) => {
      const response = await t.request('GET', `/api/v1/integrations/outbox?limit=200${query}`, { token: t.adminToken });
      expect(response.statusCode, response.body).toBe(200);
      const page = response.json() as { items: Array<{ payload: { company_name: string } }>; total: number };
      expect(page.total).toBe(page.items.length);
      return new Set(page.items.map((item) => item.payload.company_name));
    };
    expect(await companiesOf('&company=BETA')).toEqual(new Set(['BETA']));
    expect(await companiesOf('&company=ALPHA&kind=stock-in')).toEqual(new Set(['ALPHA']));
    expect(await companiesOf('')).toEqual(new Set(['ALPHA', 'BETA']));
  });
});

interface MailRow {
  to_addresses: string[];
  subject: string;
  body: string;
  sent_at: string | null;
  error: string | null;
}

/** Low-stock mails about one material (its name is unique to the test). */
const mailsAbout = (material: MaterialJson) =>
  queryRows<MailRow>(
    t,
    sql`select to_addresses, subject, body, sent_at, error from mail_outbox where body like ${`%${material.name}%`} order by id`,
  );

/** The mails about the material once `count` of them exist (after-commit effects), plus a moment for any extra one. */
async function mailsSettled(material: MaterialJson, count: number): Promise<MailRow[]> {
  await eventually(() => mailsAbout(material), (mails) => mails.length >= count);
  await new Promise((resolve) => setTimeout(resolve, 200));
  return mailsAbout(material);
}

const alertLevel = async (material: MaterialJson) =>
  (await queryRows<{ level: string | null }>(t, sql`select level from material_stock_alerts where base_id = ${material.id}`))[0]?.level ?? null;

describe('low-stock alert mail', () => {
  let purchaser: TestUser;
  let supervisor: TestUser;
  let recipients: string[];

  beforeAll(async () => {
    [purchaser, supervisor] = await Promise.all([t.user('WAREHOUSE_MGR', 'ALPHA'), t.user('SUPERVISOR', 'ALPHA')]);
    const [inactive, noPool, betaPurchaser] = await Promise.all([
      t.user('WAREHOUSE_MGR', 'ALPHA'),
      t.user('INBOUND', 'ALPHA'),
      t.user('WAREHOUSE_MGR', 'BETA'),
    ]);
    await setEmail(t, purchaser, 'purchaser@alpha.example');
    await setEmail(t, supervisor, 'supervisor@alpha.example');
    await setEmail(t, inactive, 'inactive@alpha.example');
    await setEmail(t, noPool, 'inbound@alpha.example');
    await setEmail(t, betaPurchaser, 'purchaser@beta.example');
    const admin = await t.request('GET', '/api/v1/auth/me', { token: t.adminToken });
    await t.request('PATCH', `/api/v1/users/${admin.json().id}`, { token: t.adminToken, body: { email: 'admin@example.com' } });
    await t.request('PATCH', `/api/v1/users/${inactive.id}`, { token: t.adminToken, body: { active: false } });
    recipients = ['purchaser@alpha.example', 'supervisor@alpha.example'];
  });

  async function thresholdMaterial(thresholds: { red_threshold?: number; yellow_threshold?: number }, stock: number[]) {
    const material = await createMaterial(t, w.mgr.token, { unit: '个', ...thresholds });
    const rows: StockRowJson[] = [];
    for (const quantity of stock) rows.push(await stockIn(t, w.inbound.token, { base_id: material.id, in_quantity: quantity }));
    return { material, rows };
  }

  it('sends one mail per crossing, after commit, to the company’s pending-pool holders only', async () => {
    const { material, rows } = await thresholdMaterial({ red_threshold: 2, yellow_threshold: 5 }, [10]);
    const row = rows[0]!;

    await shipFromRow(w, row, 4); // supply 6: above both
    expect(await mailsSettled(material, 0)).toEqual([]);

    await shipFromRow(w, row, 1); // supply 5: at yellow (<=)
    const yellow = await mailsSettled(material, 1);
    expect(yellow).toHaveLength(1);
    expect([...yellow[0]!.to_addresses].sort()).toEqual(recipients);
    expect(yellow[0]!.subject).toContain('黄色');
    expect(yellow[0]!.subject).toContain(material.name);
    expect(yellow[0]!.body).toContain('有效库存：5个');
    expect(yellow[0]!).toMatchObject({ sent_at: null, error: null });
    expect(await alertLevel(material)).toBe('yellow');

    await shipFromRow(w, row, 1); // supply 4: still yellow, already alerted
    expect(await mailsSettled(material, 1)).toHaveLength(1);

    await shipFromRow(w, row, 2); // supply 2: at red
    const red = await mailsSettled(material, 2);
    expect(red).toHaveLength(2);
    expect(red[1]!.subject).toContain('红色');
    expect(await alertLevel(material)).toBe('red');

    await shipFromRow(w, row, 1); // supply 1: still red
    expect(await mailsSettled(material, 2)).toHaveLength(2);

    const fresh = await stockIn(t, w.inbound.token, { base_id: material.id, in_quantity: 10 }); // supply 11: recovered
    expect(await alertLevel(material)).toBeNull();
    await shipFromRow(w, fresh, 6); // supply 5: a new crossing
    const again = await mailsSettled(material, 3);
    expect(again).toHaveLength(3);
    expect(again[2]!.subject).toContain('黄色');
  });

  it('counts every row except 不良品 as supply', async () => {
    const { material, rows } = await thresholdMaterial({ red_threshold: 3 }, [5, 10]);
    const marked = await t.request('POST', `/api/v1/inbound/stock/${rows[1]!.id}/change-status`, { token: w.mgr.token, body: { status: '不良品' } });
    expect(marked.statusCode).toBe(200);
    await shipFromRow(w, rows[0]!, 2); // 3 good + 10 defective: red
    const mails = await mailsSettled(material, 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('红色');
  });

  it('comes down on a good return and alerts again on the next fall', async () => {
    const { material, rows } = await thresholdMaterial({ yellow_threshold: 5 }, [6]);
    const line = await shipFromRow(w, rows[0]!, 2); // 4
    expect(await mailsSettled(material, 1)).toHaveLength(1);
    await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 2 }); // 6
    expect(await alertLevel(material)).toBeNull();
    await shipFromRow(w, rows[0]!, 1); // 5
    expect(await mailsSettled(material, 2)).toHaveLength(2);
  });

  it('sends no mail for a failed outbound and one mail for outbounds crossing at the same time', async () => {
    const { material, rows } = await thresholdMaterial({ yellow_threshold: 5 }, [8]);
    const requests = [];
    for (let i = 0; i < 2; i++) {
      const submitted = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 2 }]);
      requests.push(await approveOk(t, w.mgr.token, submitted.id));
    }
    const failed = await t.request('POST', '/api/v1/outbound', {
      token: w.op.token,
      body: { request_id: requests[0]!.id, lines: [{ barcode: rows[0]!.sku, quantity: 4 }] },
    });
    expect(failed.statusCode).toBe(400);
    expect(await mailsSettled(material, 0)).toEqual([]);

    const executed = await Promise.all(
      requests.map((request) =>
        t.request('POST', '/api/v1/outbound', { token: w.op.token, body: { request_id: request.id, lines: [{ barcode: rows[0]!.sku, quantity: 2 }] } }),
      ),
    );
    expect(executed.map((response) => response.statusCode)).toEqual([201, 201]);
    expect(await mailsSettled(material, 1)).toHaveLength(1);
  });

  it('alerts after a stock edit, a change to 不良品 and a delete that lower supply (the one low-stock seam)', async () => {
    const edited = await thresholdMaterial({ yellow_threshold: 5 }, [10]);
    const cut = await t.request('PUT', `/api/v1/inbound/stock/${edited.rows[0]!.id}`, { token: w.inbound.token, body: { stock_quantity: 4 } });
    expect(cut.statusCode).toBe(200);
    const afterEdit = await mailsSettled(edited.material, 1);
    expect(afterEdit).toHaveLength(1);
    expect(afterEdit[0]!.body).toContain('有效库存：4个');

    const marked = await thresholdMaterial({ red_threshold: 3 }, [2, 8]);
    const status = await t.request('POST', `/api/v1/inbound/stock/${marked.rows[1]!.id}/change-status`, {
      token: w.mgr.token,
      body: { status: '不良品' },
    });
    expect(status.statusCode).toBe(200);
    expect((await mailsSettled(marked.material, 1))[0]!.subject).toContain('红色');

    const deleted = await thresholdMaterial({ yellow_threshold: 5 }, [3, 7]);
    expect((await t.request('DELETE', `/api/v1/inbound/stock/${deleted.rows[1]!.id}`, { token: w.inbound.token })).statusCode).toBe(200);
    expect(await mailsSettled(deleted.material, 1)).toHaveLength(1);
  });

  it('sends nothing when an edit raises stock or touches only descriptive fields', async () => {
    const { material, rows } = await thresholdMaterial({ yellow_threshold: 5 }, [6]);
    await t.request('PUT', `/api/v1/inbound/stock/${rows[0]!.id}`, { token: w.inbound.token, body: { remark: '复核' } });
    await t.request('PUT', `/api/v1/inbound/stock/${rows[0]!.id}`, { token: w.inbound.token, body: { stock_quantity: 9 } });
    expect(await mailsSettled(material, 0)).toEqual([]);
  });

  it('sends nothing for a material without thresholds', async () => {
    const { material, rows } = await thresholdMaterial({}, [3]);
    await shipFromRow(w, rows[0]!, 3);
    expect(await mailsSettled(material, 0)).toEqual([]);
    expect(await alertLevel(material)).toBeNull();
  });
});
