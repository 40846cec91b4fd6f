import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTracking } from '../../tracking/test/helpers.js';
import { createMaterial, queryRows, stockIn } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { approveOk, submitOk } from './outbound-fixtures.js';
import { eventually } from './returns-fixtures.js';
import { awaitingProduct, listeningTracking } from './tracking-peer.js';

/**
 * Both services end to end (contract §5, §6, §8 Notifications): the inventory service's outbox
 * dispatcher delivers to a real tracking service listening on a local port, and the product's status
 * in tracking follows the warehouse: 待仓库收货 → 已入库 on stock-in, → 已出库 on outbound.
 */
const KEY = 'e2e-webhook-key';

let tracking: TestTracking;
let t: TestInventory;
let mgr: TestUser;
let inbound: TestUser;
let sales: TestUser;
let op: TestUser;

beforeAll(async () => {
  let origin: string;
  ({ tracking, origin } = await listeningTracking(KEY));
  t = await buildTestInventory({
    config: { trackingUrl: `${origin}/api/v1`, trackingWebhookKey: KEY },
    dispatcher: { intervalMs: 50, retryBaseMs: 50, retryMaxMs: 200, timeoutMs: 3000 },
  });
  mgr = await t.user('WAREHOUSE_MGR', 'ALPHA');
  inbound = await t.user('INBOUND', 'ALPHA');
  sales = await t.user('SALES', 'ALPHA');
  op = await t.user('OUTBOUND', 'ALPHA');
});
afterAll(async () => {
  await t?.close();
  await tracking?.close();
});

const outbox = () => queryRows<{ kind: string; status: string; last_error: string | null }>(t, sql`select kind, status, last_error from notification_outbox order by id`);
const allSettled = () => eventually(outbox, (rows) => rows.length > 0 && rows.every((row) => row.status !== 'pending'), 5000);


const trackedStatus = async (id: number) => (await tracking.request('GET', `/api/v1/products/${id}`, { token: tracking.adminToken })).json().status as string;

describe('inventory → tracking, end to end', () => {
  it('a stock-in and an outbound of a serial product move it 待仓库收货 → 已入库 → 已出库 in tracking', async () => {
    const product = await awaitingProduct(tracking, '智能控制器');
    const material = await createMaterial(t, mgr.token, { name: '智能控制器', category: 'ALPHA/成品/控制器', unit: '台' });
    // the keeper types the serial in lower case: tracking matches it trimmed and upper-cased
    const row = await stockIn(t, inbound.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: product.serial_number.toLowerCase() });

    expect((await allSettled()).map((message) => message.status)).toEqual(['delivered']);
    expect(await trackedStatus(product.id)).toBe('已入库');
    const scanned = await tracking.request('GET', `/api/v1/products/scan/${product.serial_number}`, { token: tracking.adminToken });
    expect(scanned.json()).toMatchObject({ status: '已入库', base_id: material.id });
    const models = await tracking.request('GET', '/api/v1/materials', { token: tracking.adminToken });
    expect(models.json().items).toEqual([expect.objectContaining({ base_id: material.id, name: '智能控制器', category: 'ALPHA/成品/控制器' })]);

    const request = await submitOk(t, sales.token, [{ base_id: material.id, quantity: 1 }], { outbound_type: 'SALES' });
    await approveOk(t, mgr.token, request.id);
    const executed = await t.request('POST', '/api/v1/outbound', { token: op.token, body: { request_id: request.id, consumer_name: '客户甲', lines: [{ barcode: row.sku, quantity: 1 }] } });
    expect(executed.statusCode, executed.body).toBe(201);

    expect((await eventually(outbox, (rows) => rows.length === 2 && rows.every((message) => message.status !== 'pending'), 5000)).map((message) => message.status)).toEqual([
      'delivered',
      'delivered',
    ]);
    expect(await trackedStatus(product.id)).toBe('已出库');
    const failed = await t.request('GET', '/api/v1/integrations/outbox?status=failed', { token: t.adminToken });
    expect(failed.json().total).toBe(0);

    // the tracking audit log shows the people who scanned on the inventory side
    const audit = await tracking.request('GET', '/api/v1/audit?limit=50', { token: tracking.adminToken });
    const receipts = (audit.json().items as Array<{ module: string; username: string; source: string }>).filter((entry) => entry.module === '库存通知');
    expect(receipts.map((entry) => entry.username).sort()).toEqual([inbound.username, op.username].sort());
  });

  it('another company’s stock-in is delivered (200, ignored) and leaves the tracking product alone', async () => {
    const product = await awaitingProduct(tracking, '外部件');
    const betaMgr = await t.user('WAREHOUSE_MGR', 'BETA');
    const material = await createMaterial(t, betaMgr.token, { category: 'BETA/成品' });
    const before = (await outbox()).length;
    await stockIn(t, betaMgr.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: product.serial_number });

    const rows = await eventually(outbox, (all) => all.length === before + 1 && all.every((message) => message.status !== 'pending'), 5000);
    expect(rows.at(-1)).toMatchObject({ kind: 'stock-in', status: 'delivered', last_error: null });
    expect(await trackedStatus(product.id)).toBe('待仓库收货');
  });
});
