import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTracking } from '../../tracking/test/helpers.js';
import { createMaterial, flowCast, queryRows, stockIn, type FlowCast } from './fixtures.js';
import { buildTestInventory, type TestInventory } from './helpers.js';
import { approveOk, materialWithStock, submitOk } from './outbound-fixtures.js';
import { eventually, returnOk, shipFromRow } from './returns-fixtures.js';
import { approvedBorrow, dispatchOk } from './borrow-fixtures.js';
import { awaitingProduct, listeningTracking } from './tracking-peer.js';

/**
 * Conformance of what the inventory service tells the production-tracking service (spec inventory §6,
 * tracking §4.1; contract §5, §8 Notifications), both services running: exactly one message after each
 * stock-in (every kind) and after each outbound execution, with the contract's fields, delivered and
 * applied by the tracking side (待仓库收货 → 已入库 → 已出库, audit under the operator), and no message for
 * any other change (spec 6.4: "The service sends no other events").
 */
const KEY = 'conformance-webhook-key';

let tracking: TestTracking;
let t: TestInventory;
let w: FlowCast;

beforeAll(async () => {
  let origin: string;
  ({ tracking, origin } = await listeningTracking(KEY));
  t = await buildTestInventory({
    config: { trackingUrl: origin, trackingWebhookKey: KEY },
    dispatcher: { intervalMs: 50, retryBaseMs: 50, retryMaxMs: 200, timeoutMs: 3000 },
  });
  w = await flowCast(t, { op: '出库员小王', inbound: '入库员小李' });
});
afterAll(async () => {
  await t?.close();
  await tracking?.close();
});

interface OutboxRow {
  id: number;
  event_id: string;
  kind: string;
  status: string;
  attempts: number;
  last_error: string | null;
  payload: Record<string, unknown>;
}

const lastOutboxId = async () => (await queryRows<{ id: number }>(t, sql`select coalesce(max(id), 0)::int as id from notification_outbox`))[0]!.id;
const outboxAfter = (id: number) =>
  queryRows<OutboxRow>(t, sql`select id::int, event_id::text, kind, status, attempts, last_error, payload from notification_outbox where id > ${id} order by id`);
/** The messages written after `since`, once all of them have left pending (delivered or failed). */
const settledAfter = (since: number, count: number) =>
  eventually(
    () => outboxAfter(since),
    (rows) => rows.length >= count && rows.every((row) => row.status !== 'pending'),
    5000,
  );

const trackedProduct = async (id: number) => (await tracking.request('GET', `/api/v1/products/${id}`, { token: tracking.adminToken })).json();

/** The tracking audit entries of one processed message (module 库存通知, id = event_id): who the log shows. */
async function receipt(eventId: string) {
  const audit = await tracking.request('GET', `/api/v1/audit?module=${encodeURIComponent('库存通知')}&limit=200`, { token: tracking.adminToken });
  expect(audit.statusCode, audit.body).toBe(200);
  const entries = (audit.json().items as Array<{ module: string; username: string; target_id: string }>).filter(
    (entry) => entry.module === '库存通知' && entry.target_id === eventId,
  );
  return entries;
}

describe('stock-in notifications (one per stock-in, every kind)', () => {
  it('a finished product with a serial: one message with the contract fields; tracking moves 待仓库收货 → 已入库 and audits the operator', async () => {
    const product = await awaitingProduct(tracking, '网关控制器');
    const material = await createMaterial(t, w.mgr.token, { name: '网关控制器', category: 'ALPHA/成品/网关', unit: '台' });
    const since = await lastOutboxId();
    const row = await stockIn(t, w.inbound.token, {
      source_table: 'stock_product',
      base_id: material.id,
      in_quantity: 1,
      serial_number: product.serial_number,
      in_date: '2025-05-06',
    });

    const messages = await settledAfter(since, 1);
    expect(messages).toHaveLength(1);
    const [message] = messages as [OutboxRow];
    expect(message).toMatchObject({ kind: 'stock-in', status: 'delivered', attempts: 1, last_error: null });
    expect(message.payload).toEqual({
      event_id: message.event_id,
      company_name: 'ALPHA',
      operator: w.inbound.username,
      source_table: 'stock_product',
      stock_id: row.id,
      sku: row.sku,
      serial_number: product.serial_number,
      base_id: material.id,
      material_name: '网关控制器',
      category: 'ALPHA/成品/网关',
      quantity: 1,
      in_date: '2025-05-06',
    });
    expect(await trackedProduct(product.id)).toMatchObject({ status: '已入库' });
    // no department account named like the inventory user: the audit shows the account as sent
    expect((await receipt(message.event_id)).map((entry) => entry.username)).toEqual([w.inbound.username]);
  });

  it('purchased parts (stock_buy, also with request_id) and semi-finished goods (stock_semi): one message each, delivered, nothing matched', async () => {
    const part = await createMaterial(t, w.mgr.token, { name: '电阻 10K', category: 'ALPHA/电子/电阻' });
    const semi = await createMaterial(t, w.mgr.token, { name: '主板组件', category: 'ALPHA/半成品' });
    const purchase = await t.request('POST', '/api/v1/purchase', { token: w.sales.token, body: { items: [{ base_id: part.id, quantity: 5 }] } });
    expect(purchase.statusCode, purchase.body).toBe(201);
    const requestId = purchase.json().requests[0].id as number;
    const approved = await t.request('PATCH', `/api/v1/purchase/${requestId}/approve`, { token: w.mgr.token, body: { action: 'approve' } });
    expect(approved.statusCode, approved.body).toBe(200);

    const since = await lastOutboxId();
    const buy = await stockIn(t, w.inbound.token, { source_table: 'stock_buy', base_id: part.id, in_quantity: 2.5, batch_number: 'B-01', in_date: '2025-05-07' });
    const bought = await stockIn(t, w.inbound.token, { source_table: 'stock_buy', base_id: part.id, in_quantity: 5, request_id: requestId });
    const semiRow = await stockIn(t, w.mgr.token, { source_table: 'stock_semi', base_id: semi.id, in_quantity: 3, batch_number: 'S-01', in_date: '2025-05-07' });

    const messages = await settledAfter(since, 3);
    expect(messages.map((message) => [message.kind, message.status])).toEqual([
      ['stock-in', 'delivered'],
      ['stock-in', 'delivered'],
      ['stock-in', 'delivered'],
    ]);
    expect(messages[0]!.payload).toEqual({
      event_id: messages[0]!.event_id,
      company_name: 'ALPHA',
      operator: w.inbound.username,
      source_table: 'stock_buy',
      stock_id: buy.id,
      sku: buy.sku,
      serial_number: null,
      base_id: part.id,
      material_name: '电阻 10K',
      category: 'ALPHA/电子/电阻',
      quantity: 2.5,
      in_date: '2025-05-07',
    });
    expect(messages[1]!.payload).toMatchObject({ source_table: 'stock_buy', stock_id: bought.id, quantity: 5, operator: w.inbound.username });
    expect(messages[2]!.payload).toMatchObject({
      source_table: 'stock_semi',
      stock_id: semiRow.id,
      sku: semiRow.sku,
      serial_number: null,
      category: 'ALPHA/半成品',
      quantity: 3,
      operator: w.mgr.username,
    });
    // every processed message leaves one tracking audit entry under its operator, matched or not
    expect((await receipt(messages[2]!.event_id)).map((entry) => entry.username)).toEqual([w.mgr.username]);
    // parts and semi-finished goods are not product models
    const models = await tracking.request('GET', '/api/v1/materials', { token: tracking.adminToken });
    const modelIds = (models.json().items as Array<{ base_id: number }>).map((model) => model.base_id);
    expect(modelIds).not.toContain(part.id);
    expect(modelIds).not.toContain(semi.id);
  });

  it('the identity-card flow: card lookup with the webhook key, stock-in from its prefill, product 已入库', async () => {
    const product = await awaitingProduct(tracking, '边缘网关');
    const material = await createMaterial(t, w.mgr.token, { name: '边缘网关', category: 'ALPHA/成品/网关', unit: '台' });
    const card = await t.request('GET', `/api/v1/inbound/stock/card/${product.serial_number}`, { token: w.inbound.token });
    expect(card.statusCode, card.body).toBe(200);
    const prefill = card.json();
    expect(prefill).toMatchObject({ source_table: 'stock_product', serial_number: product.serial_number, base_id: material.id, in_quantity: 1 });
    expect(prefill.tracking).toMatchObject({ status: '待仓库收货' });

    const since = await lastOutboxId();
    await stockIn(t, w.inbound.token, {
      source_table: prefill.source_table,
      base_id: prefill.base_id,
      in_quantity: prefill.in_quantity,
      serial_number: prefill.serial_number,
    });
    expect((await settledAfter(since, 1)).map((message) => message.status)).toEqual(['delivered']);
    expect(await trackedProduct(product.id)).toMatchObject({ status: '已入库', base_id: material.id });
    const again = await t.request('GET', `/api/v1/inbound/stock/card/${product.serial_number}`, { token: w.inbound.token });
    expect(again.json()).toMatchObject({ tracking: { status: '已入库' }, existing_stock: { status: '在库' } });
  });
});

describe('outbound notifications (one per execution)', () => {
  it('names the company, the type and the person who scanned; tracking moves the product to 已出库 and audits that person by display name', async () => {
    // a department account of the tracking service with the scanner's username: its display name is the audit label
    const account = await tracking.request('POST', '/api/v1/users', {
      token: tracking.adminToken,
      body: { username: w.op.username, password: 'password-1', name: '王出库', role: 'OPERATOR' },
    });
    expect(account.statusCode, account.body).toBe(201);

    const product = await awaitingProduct(tracking, '工业网关');
    const material = await createMaterial(t, w.mgr.token, { name: '工业网关', category: 'ALPHA/成品/网关', unit: '台' });
    const row = await stockIn(t, w.inbound.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: product.serial_number });
    const part = await createMaterial(t, w.mgr.token);
    const partRow = await stockIn(t, w.inbound.token, { base_id: part.id, in_quantity: 10 });
    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }, { base_id: part.id, quantity: 4 }], { outbound_type: 'SALES' });
    await approveOk(t, w.mgr.token, request.id);

    const since = await lastOutboxId();
    const executed = await t.request('POST', '/api/v1/outbound', {
      token: w.op.token,
      body: { request_id: request.id, consumer_name: '客户乙', lines: [{ barcode: row.sku, quantity: 1 }, { barcode: partRow.sku, quantity: 4 }] },
    });
    expect(executed.statusCode, executed.body).toBe(201);

    const messages = await settledAfter(since, 1);
    expect(messages).toHaveLength(1);
    const [message] = messages as [OutboxRow];
    expect(message).toMatchObject({ kind: 'outbound', status: 'delivered' });
    expect(message.payload).toEqual({
      event_id: message.event_id,
      company_name: 'ALPHA',
      operator: w.op.username,
      outbound_type: 'SALES',
      outbound_no: executed.json().outbound_no,
      items: [
        { stock_id: row.id, sku: row.sku, serial_number: product.serial_number, quantity: 1 },
        { stock_id: partRow.id, sku: partRow.sku, serial_number: null, quantity: 4 },
      ],
    });
    expect(await trackedProduct(product.id)).toMatchObject({ status: '已出库' });
    expect((await receipt(message.event_id)).map((entry) => entry.username)).toEqual(['王出库']);
  });

  it('carries each outbound_type as the request named it (SALES, USE, PRODUCTION)', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const since = await lastOutboxId();
    for (const outboundType of ['SALES', 'USE', 'PRODUCTION']) await shipFromRow(w, rows[0]!, 1, { outboundType });
    const messages = await settledAfter(since, 3);
    expect(messages.map((message) => [message.kind, message.payload.outbound_type, message.status])).toEqual([
      ['outbound', 'SALES', 'delivered'],
      ['outbound', 'USE', 'delivered'],
      ['outbound', 'PRODUCTION', 'delivered'],
    ]);
  });
});

describe('no other events (spec 6.4)', () => {
  it('borrowing, returns, restock, scrap, stock edits, moves, status changes, deletes and requests write no message', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [20, 5]);
    const row = rows[0]!;
    const line = await shipFromRow(w, row, 4);
    const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 2 }]);
    const since = await lastOutboxId();

    // borrow: dispatch and return
    const slip = await dispatchOk(t, w.mgr.token, { request_id: borrow.id, borrower_id: w.sales.id, lines: [{ barcode: row.sku, quantity: 2 }], location: '研发部' });
    const back = await t.request('POST', `/api/v1/borrow/${slip.lines[0]!.id}/return`, { token: w.sales.token, body: { quantity: 2, location: 'A/01/01' } });
    expect(back.statusCode, back.body).toBeLessThan(300);
    // returns from an outbound, good and defective, and a restock of the ledger entry
    await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 1 });
    const defective = await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 1 });
    const restock = await t.request('POST', `/api/v1/inbound/stock/defective/${defective.ledger_entry!.id}/restock`, { token: w.mgr.token, body: { quantity: 1 } });
    expect(restock.statusCode, restock.body).toBe(200);
    // stock edits, status change, move, delete
    expect((await t.request('PUT', `/api/v1/inbound/stock/${row.id}`, { token: w.inbound.token, body: { stock_quantity: 18 } })).statusCode).toBe(200);
    expect((await t.request('POST', `/api/v1/inbound/stock/${rows[1]!.id}/change-status`, { token: w.mgr.token, body: { status: '冻结' } })).statusCode).toBe(200);
    expect((await t.request('POST', `/api/v1/stock/${row.id}/move`, { token: w.inbound.token, body: { to_location: 'B/02', quantity: 3 } })).statusCode).toBe(200);
    expect((await t.request('DELETE', `/api/v1/inbound/stock/${rows[1]!.id}`, { token: w.inbound.token })).statusCode).toBe(200);
    // scrap: request, approval, execution
    const scrap = await t.request('POST', '/api/v1/scrap/request', {
      token: w.op.token,
      body: { reason: '损坏', items: [{ source_table: row.source_table, stock_id: row.id, scrap_qty: 1 }], approver_ids: [w.mgr.id] },
    });
    expect(scrap.statusCode, scrap.body).toBe(201);
    expect((await t.request('POST', `/api/v1/scrap/request/${scrap.json().id}/approve`, { token: w.mgr.token })).statusCode).toBe(200);
    const scrapped = await t.request('POST', `/api/v1/scrap/request/${scrap.json().id}/execute`, {
      token: w.mgr.token,
      body: { scans: [{ barcode: row.sku, quantity: 1 }] },
    });
    expect(scrapped.statusCode, scrapped.body).toBe(200);
    // requests that are submitted, approved or rejected but not executed
    const pending = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
    expect((await t.request('POST', `/api/v1/outbound/request/${pending.id}/reject`, { token: w.mgr.token, body: { reason: '不需要' } })).statusCode).toBe(200);

    expect(await outboxAfter(since)).toEqual([]);
  });
});
