import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestTracking } from '../../tracking/test/helpers.js';
import { createMaterial, stockIn } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { awaitingProduct, listeningTracking } from './tracking-peer.js';

/**
 * The identity-card lookup (contract §4 `GET /inbound/stock/card/<serial_number>`, §8 Notifications): the
 * inventory service asks a real tracking service (`GET /integrations/products/{sn}` with the webhook key)
 * and answers the values that prefill a finished-product stock-in.
 */
const KEY = 'card-webhook-key';

let tracking: TestTracking;
let t: TestInventory;
let trackingUrl: string;
let mgr: TestUser;
let inbound: TestUser;

beforeAll(async () => {
  ({ tracking, origin: trackingUrl } = await listeningTracking(KEY));
  t = await buildTestInventory({ config: { trackingUrl, trackingWebhookKey: KEY }, dispatcher: { enabled: false } });
  mgr = await t.user('WAREHOUSE_MGR', 'ALPHA');
  inbound = await t.user('INBOUND', 'ALPHA');
});
afterAll(async () => {
  await t?.close();
  await tracking?.close();
});


const card = (serial: string, token: string, group = 'inbound/stock') => t.request('GET', `/api/v1/${group}/card/${serial}`, { token });

describe('GET /inbound/stock/card/{serial_number}', () => {
  it('prefills a product stock-in from the tracking card and shows a stock row that already carries the serial', async () => {
    const product = await awaitingProduct(tracking, '身份卡控制器');
    const material = await createMaterial(t, mgr.token, { name: '身份卡控制器', category: 'ALPHA/成品/控制器', unit: '台' });

    const found = await card(product.serial_number.toLowerCase(), inbound.token);
    expect(found.statusCode, found.body).toBe(200);
    expect(found.json()).toMatchObject({
      source_table: 'stock_product',
      serial_number: product.serial_number,
      base_id: material.id,
      material_name: '身份卡控制器',
      category: 'ALPHA/成品/控制器',
      unit: '台',
      company_name: 'ALPHA',
      in_quantity: 1,
      tracking: { model: '身份卡控制器', status: '待仓库收货' },
      existing_stock: null,
    });

    const row = await stockIn(t, inbound.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: product.serial_number });
    const again = await card(product.serial_number, inbound.token, 'stock');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().existing_stock).toMatchObject({ id: row.id, sku: row.sku, company_name: 'ALPHA' });
  });

  it('matches the model only among the caller’s company’s materials, never another company’s base_id', async () => {
    const alpha = await createMaterial(t, mgr.token, { name: '身份卡电源', category: 'ALPHA/成品/电源' });
    const betaMgr = await t.user('WAREHOUSE_MGR', 'BETA');
    const beta = await createMaterial(t, betaMgr.token, { name: '身份卡电源', category: 'BETA/成品/电源' });
    const created = await tracking.request('POST', '/api/v1/products', { token: tracking.adminToken, body: { model: '身份卡电源', base_id: alpha.id } });
    expect(created.statusCode, created.body).toBe(201);
    const serial = created.json().serial_number as string;

    const own = await card(serial, inbound.token);
    expect(own.json()).toMatchObject({ base_id: alpha.id, company_name: 'ALPHA' });
    const other = await card(serial, betaMgr.token);
    expect(other.statusCode, other.body).toBe(200);
    expect(other.json()).toMatchObject({ base_id: beta.id, company_name: 'BETA', category: 'BETA/成品/电源', tracking: { base_id: alpha.id } });
  });

  it('is 404 for a serial tracking does not know and 403 without inbound_stock:operation', async () => {
    const unknown = await card('NOPE000000000001', inbound.token);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.any(String) });

    const sales = await t.user('SALES', 'ALPHA');
    const refused = await card('NOPE000000000001', sales.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('is 503 UPSTREAM_UNAVAILABLE when tracking is not configured, refuses the key or cannot be reached', async () => {
    const config = t.service.deps.config;
    const product = await awaitingProduct(tracking, '身份卡网关');
    try {
      config.trackingUrl = undefined;
      const unset = await card(product.serial_number, inbound.token);
      expect(unset.statusCode).toBe(503);
      expect(unset.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'not_configured' });

      config.trackingUrl = trackingUrl;
      config.trackingWebhookKey = 'wrong-key';
      const rejected = await card(product.serial_number, inbound.token);
      expect(rejected.statusCode).toBe(503);
      expect(rejected.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'rejected' });

      config.trackingUrl = 'http://127.0.0.1:1';
      config.trackingWebhookKey = KEY;
      const down = await card(product.serial_number, inbound.token);
      expect(down.statusCode).toBe(503);
      expect(down.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason: 'unreachable' });
    } finally {
      config.trackingUrl = trackingUrl;
      config.trackingWebhookKey = KEY;
    }
  });
});
