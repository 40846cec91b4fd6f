import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@wms/platform';
import { products } from '../src/db/schema/index.js';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { createProduct } from './scope-fixtures.js';

const KEY = 'webhook-key-for-tests';
const STOCK_IN = '/api/v1/integrations/inventory/stock-in';
const OUTBOUND = '/api/v1/integrations/inventory/outbound';

let t: TestTracking;

beforeAll(async () => {
  t = await buildTestTracking({ config: { webhookApiKey: KEY } });
});
afterAll(() => t.close());

const post = (path: string, body: unknown, headers: Record<string, string> = { 'x-api-key': KEY }) => t.request('POST', path, { body, headers });

/** A product the warehouse is waiting for (生产中 → 待仓库收货 through the API). */
async function awaitingProduct(model = '智能控制器') {
  const product = await createProduct(t, { model });
  const moved = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '待仓库收货' } });
  expect(moved.statusCode, moved.body).toBe(200);
  return product;
}

const productRow = async (serial: string) => {
  const [row] = await t.service.deps.database.read((q) => q.select().from(products).where(eq(products.serialNumber, serial)));
  return row!;
};

interface AuditEntry {
  table_name: string;
  action: string;
  target_id: string;
  target_name: string | null;
  username: string;
  department: string | null;
}
const auditOf = (table: string, targetId: string | number) =>
  t.service.deps.database.read((q) =>
    queryRows<AuditEntry>(
      q,
      sql`select table_name, action, target_id, target_name, username, department from audit_logs
          where table_name = ${table} and target_id = ${String(targetId)} order by id`,
    ),
  );
const auditCount = async () =>
  (await t.service.deps.database.read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from audit_logs`)))[0]!.n;
const eventCount = async () =>
  (await t.service.deps.database.read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from integration_events`)))[0]!.n;

function stockInNotice(serial: string | null, overrides: Record<string, unknown> = {}) {
  return {
    event_id: randomUUID(),
    company_name: 'ALPHA',
    operator: 'alpha_in',
    source_table: 'stock_product',
    stock_id: 17,
    sku: `P20250401-${Math.random().toString(36).slice(2, 8).toUpperCase()}`,
    serial_number: serial,
    base_id: 501,
    material_name: '智能控制器',
    category: 'ALPHA/成品/控制器',
    quantity: 1,
    in_date: '2025-04-01',
    ...overrides,
  };
}

function outboundNotice(serials: Array<string | null>, overrides: Record<string, unknown> = {}) {
  return {
    event_id: randomUUID(),
    company_name: 'ALPHA',
    operator: 'alpha_out',
    outbound_type: 'SALES',
    outbound_no: `CK20250401${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`,
    items: serials.map((serial, index) => ({ stock_id: 100 + index, sku: `SKU-${index}`, serial_number: serial, quantity: 1 })),
    ...overrides,
  };
}

describe('receiver authentication (spec 4.1 rule 1)', () => {
  it('needs X-API-Key equal to the webhook key: missing or wrong is 401, a bearer token does not count', async () => {
    const product = await awaitingProduct();
    const notice = stockInNotice(product.serial_number);
    for (const headers of [{}, { 'x-api-key': 'wrong' }, { authorization: `Bearer ${t.adminToken}` }] as Array<Record<string, string>>) {
      for (const path of [STOCK_IN, OUTBOUND]) {
        const res = await post(path, path === STOCK_IN ? notice : outboundNotice([product.serial_number]), headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
      }
    }
    expect((await productRow(product.serial_number)).status).toBe('待仓库收货');
  });

  it('answers 503 KEY_NOT_CONFIGURED while the webhook key setting is empty', async () => {
    const config = t.service.deps.config;
    config.webhookApiKey = undefined;
    try {
      const res = await post(STOCK_IN, stockInNotice('X'));
      expect(res.statusCode).toBe(503);
      expect(res.json()).toMatchObject({ code: 'KEY_NOT_CONFIGURED' });
      expect((await t.request('GET', '/api/v1/integrations/products/ABC', { headers: { 'x-api-key': KEY } })).statusCode).toBe(503);
    } finally {
      config.webhookApiKey = KEY;
    }
  });
});

describe('department allow-list (spec 4.1 rules 2–3)', () => {
  it('processes ALPHA however it is spaced or cased', async () => {
    for (const company of ['ALPHA', ' alpha ', 'Alpha']) {
      const product = await awaitingProduct();
      const res = await post(STOCK_IN, stockInNotice(product.serial_number, { company_name: company }));
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true, matched: true });
      expect((await productRow(product.serial_number)).status).toBe('已入库');
    }
  });

  it('ignores another department, empty, blank, missing, null and unknown values with 200, writing nothing and no audit', async () => {
    const product = await awaitingProduct();
    const audits = await auditCount();
    const events = await eventCount();
    const variants: Array<Record<string, unknown>> = [
      { company_name: 'BETA' },
      { company_name: '' },
      { company_name: '   ' },
      { company_name: null },
      { company_name: 'ALPHA2' },
      { company_name: 'ALPHA/成品' },
    ];
    for (const variant of variants) {
      for (const [path, body] of [
        [STOCK_IN, stockInNotice(product.serial_number, variant)],
        [OUTBOUND, outboundNotice([product.serial_number], variant)],
      ] as const) {
        const res = await post(path, body);
        expect(res.statusCode).toBe(200);
        expect(res.json()).toEqual({ ok: true, matched: false, reason: 'ignored_company' });
      }
    }
    const { company_name: _omitted, ...missing } = stockInNotice(product.serial_number);
    expect((await post(STOCK_IN, missing)).json()).toEqual({ ok: true, matched: false, reason: 'ignored_company' });
    // another department's message is ignored whatever it leaves out, items included
    const bare = await post(OUTBOUND, { company_name: 'BETA', operator: 'x' });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(bare.json()).toEqual({ ok: true, matched: false, reason: 'ignored_company' });

    const row = await productRow(product.serial_number);
    expect(row).toMatchObject({ status: '待仓库收货', stockedInAt: null, shippedAt: null });
    expect(await auditCount()).toBe(audits);
    expect(await eventCount()).toBe(events);
  });
});

describe('stock-in receiver', () => {
  it('moves the product 待仓库收货 → 已入库, stamps stocked_in_at, links the model, and audits it under the operator', async () => {
    const operator = await t.user('OPERATOR', { name: '孙入库' });
    const product = await awaitingProduct('智能控制器');
    const notice = stockInNotice(product.serial_number.toLowerCase(), { operator: operator.username, base_id: 777 });
    const res = await post(STOCK_IN, notice);
    expect(res.json()).toEqual({ ok: true, matched: true });

    const row = await productRow(product.serial_number);
    expect(row.status).toBe('已入库');
    expect(row.stockedInAt).toBeInstanceOf(Date);
    expect(row.baseId).toBe(777);

    const audit = await auditOf('products', product.id);
    expect(audit.at(-1)).toMatchObject({ action: 'UPDATE', username: '孙入库', department: 'ALPHA' });
    expect(await auditOf('integration_events', notice.event_id)).toEqual([
      expect.objectContaining({ action: 'CREATE', target_name: product.serial_number, username: '孙入库' }),
    ]);

    const materials = await t.request('GET', '/api/v1/materials?keyword=智能控制器', { token: t.adminToken });
    expect(materials.json().items).toContainEqual(expect.objectContaining({ base_id: 777, name: '智能控制器', category: 'ALPHA/成品/控制器' }));
  });

  it('answers matched false without reason for an unknown serial or a product not awaiting receipt, and still audits the message', async () => {
    const inProduction = await createProduct(t, { model: '智能网关' });
    for (const serial of ['FFFFFFFFFFFFFFFF', inProduction.serial_number, null]) {
      const notice = stockInNotice(serial, { operator: 'someone_unknown' });
      const res = await post(STOCK_IN, notice);
      expect(res.json()).toEqual({ ok: true, matched: false });
      expect(await auditOf('integration_events', notice.event_id)).toEqual([expect.objectContaining({ action: 'CREATE', username: 'someone_unknown' })]);
    }
    expect((await productRow(inProduction.serial_number)).status).toBe('生产中');
  });

  it('does not move a product that was stocked in already (a second stock-in of the serial is not matched)', async () => {
    const product = await awaitingProduct();
    expect((await post(STOCK_IN, stockInNotice(product.serial_number))).json()).toEqual({ ok: true, matched: true });
    const first = await productRow(product.serial_number);
    expect((await post(STOCK_IN, stockInNotice(product.serial_number))).json()).toEqual({ ok: true, matched: false });
    expect((await productRow(product.serial_number)).stockedInAt).toEqual(first.stockedInAt);
  });

  it('records no material for parts (stock_buy) and none without a category', async () => {
    const before = await t.request('GET', '/api/v1/materials?keyword=螺丝', { token: t.adminToken });
    await post(STOCK_IN, stockInNotice(null, { source_table: 'stock_buy', base_id: 9001, material_name: '内六角螺丝', category: 'ALPHA/机械件/紧固件' }));
    await post(STOCK_IN, stockInNotice(null, { base_id: 9002, material_name: '螺丝刀', category: null }));
    const after = await t.request('GET', '/api/v1/materials?keyword=螺丝', { token: t.adminToken });
    expect(after.json().total).toBe(before.json().total);
  });
});

describe('outbound receiver', () => {
  async function stockedInProduct() {
    const product = await awaitingProduct();
    expect((await post(STOCK_IN, stockInNotice(product.serial_number))).json()).toMatchObject({ matched: true });
    return product;
  }

  it('moves every matched product to 已出库 with shipped_at; unknown items are skipped', async () => {
    const a = await stockedInProduct();
    const b = await stockedInProduct();
    const notice = outboundNotice([a.serial_number, ` ${b.serial_number.toLowerCase()} `, 'NOPE000000000000', null], { outbound_type: 'USE' });
    const res = await post(OUTBOUND, notice);
    expect(res.json()).toEqual({ ok: true, matched: true });
    for (const product of [a, b]) {
      const row = await productRow(product.serial_number);
      expect(row.status).toBe('已出库');
      expect(row.shippedAt).toBeInstanceOf(Date);
      expect((await auditOf('products', product.id)).at(-1)).toMatchObject({ action: 'UPDATE', username: 'alpha_out' });
    }
    expect(await auditOf('integration_events', notice.event_id)).toEqual([
      expect.objectContaining({ action: 'CREATE', target_name: notice.outbound_no, username: 'alpha_out' }),
    ]);
  });

  it('ships a product still awaiting receipt (its stock-in notice never came)', async () => {
    const product = await awaitingProduct();
    expect((await post(OUTBOUND, outboundNotice([product.serial_number]))).json()).toEqual({ ok: true, matched: true });
    expect((await productRow(product.serial_number)).status).toBe('已出库');
  });

  it('answers matched false when no item matches (unknown, already shipped, in production, no serial, no items)', async () => {
    const shipped = await stockedInProduct();
    await post(OUTBOUND, outboundNotice([shipped.serial_number]));
    const inProduction = await createProduct(t);
    for (const serials of [['NOPE000000000001'], [shipped.serial_number], [inProduction.serial_number], [null], []]) {
      const notice = outboundNotice(serials);
      expect((await post(OUTBOUND, notice)).json()).toEqual({ ok: true, matched: false });
      expect(await auditOf('integration_events', notice.event_id)).toHaveLength(1);
    }
    expect((await productRow(inProduction.serial_number)).status).toBe('生产中');
  });

  it('accepts any outbound_type and ignores it', async () => {
    for (const outboundType of ['SALES', 'PRODUCTION', 'SOMETHING_NEW', null]) {
      const product = await stockedInProduct();
      expect((await post(OUTBOUND, outboundNotice([product.serial_number], { outbound_type: outboundType }))).json()).toEqual({ ok: true, matched: true });
    }
  });
});

describe('redelivery (event_id)', () => {
  it('answers a redelivered stock-in with duplicate: true and changes nothing, even when the body differs', async () => {
    const product = await awaitingProduct();
    const other = await awaitingProduct();
    const notice = stockInNotice(product.serial_number);
    expect((await post(STOCK_IN, notice)).json()).toEqual({ ok: true, matched: true });
    const stocked = await productRow(product.serial_number);
    const audits = await auditCount();

    expect((await post(STOCK_IN, notice)).json()).toEqual({ ok: true, matched: true, duplicate: true });
    expect((await post(STOCK_IN, { ...notice, serial_number: other.serial_number })).json()).toEqual({ ok: true, matched: true, duplicate: true });
    expect((await post(OUTBOUND, outboundNotice([product.serial_number], { event_id: notice.event_id }))).json()).toEqual({
      ok: true,
      matched: true,
      duplicate: true,
    });

    expect(await productRow(product.serial_number)).toEqual(stocked);
    expect((await productRow(other.serial_number)).status).toBe('待仓库收货');
    expect(await auditCount()).toBe(audits);
    expect(await auditOf('integration_events', notice.event_id)).toHaveLength(1);
  });

  it('repeats the first answer of an unmatched message', async () => {
    const notice = outboundNotice(['NOPE000000000002']);
    expect((await post(OUTBOUND, notice)).json()).toEqual({ ok: true, matched: false });
    expect((await post(OUTBOUND, notice)).json()).toEqual({ ok: true, matched: false, duplicate: true });
  });

  it('processes one of several concurrent deliveries of the same event', async () => {
    const product = await awaitingProduct();
    const notice = stockInNotice(product.serial_number);
    const answers = (await Promise.all(Array.from({ length: 6 }, () => post(STOCK_IN, notice)))).map((res) => res.json());
    expect(answers.filter((answer) => !answer.duplicate)).toEqual([{ ok: true, matched: true }]);
    expect(answers.filter((answer) => answer.duplicate)).toHaveLength(5);
    expect(await auditOf('integration_events', notice.event_id)).toHaveLength(1);
    expect((await auditOf('products', product.id)).filter((entry) => entry.username === 'alpha_in')).toHaveLength(1);
  });

  it('processes a message without event_id (it cannot be recognised when redelivered)', async () => {
    const { event_id: _none, ...notice } = stockInNotice('NOPE000000000003');
    expect((await post(STOCK_IN, notice)).json()).toEqual({ ok: true, matched: false });
    expect((await post(STOCK_IN, notice)).json()).toEqual({ ok: true, matched: false });
  });
});

describe('operator in the audit log (spec 4.1 rule 4)', () => {
  it('shows the display name of a department account, else the account as sent, else 库存系统', async () => {
    const named = await t.user('ENGINEER', { name: '李工程师' });
    await t.insertUser({ username: 'beta_person', department: 'BETA' });
    const cases: Array<[unknown, string]> = [
      [named.username, '李工程师'],
      [` ${named.username} `, '李工程师'],
      ['no_such_account', 'no_such_account'],
      ['beta_person', 'beta_person'],
      [null, '库存系统'],
      ['', '库存系统'],
      ['   ', '库存系统'],
    ];
    for (const [operator, label] of cases) {
      const product = await awaitingProduct();
      const notice = stockInNotice(product.serial_number, { operator });
      expect((await post(STOCK_IN, notice)).json()).toEqual({ ok: true, matched: true });
      expect((await auditOf('products', product.id)).at(-1)).toMatchObject({ action: 'UPDATE', username: label });
      expect((await auditOf('integration_events', notice.event_id))[0]).toMatchObject({ username: label });
    }
    const { operator: _none, ...withoutOperator } = stockInNotice('NOPE000000000004');
    await post(STOCK_IN, withoutOperator);
    expect((await auditOf('integration_events', withoutOperator.event_id))[0]).toMatchObject({ username: '库存系统' });
  });
});

describe('bad payloads', () => {
  it('answers 422 VALIDATION_FAILED naming the field for wrong shapes, and writes nothing', async () => {
    const product = await awaitingProduct();
    const audits = await auditCount();
    const bad: Array<[string, unknown]> = [
      [STOCK_IN, stockInNotice(product.serial_number, { serial_number: 12345 })],
      [STOCK_IN, stockInNotice(product.serial_number, { company_name: 42 })],
      [STOCK_IN, stockInNotice(product.serial_number, { event_id: '' })],
      [STOCK_IN, stockInNotice(product.serial_number, { base_id: 'seven' })],
      [STOCK_IN, stockInNotice(product.serial_number, { quantity: '1' })],
      [STOCK_IN, stockInNotice(product.serial_number, { operator: ['a'] })],
      [STOCK_IN, [stockInNotice(product.serial_number)]],
      [OUTBOUND, outboundNotice([product.serial_number], { items: 'all of them' })],
      [OUTBOUND, { ...outboundNotice([]), items: undefined }],
      [OUTBOUND, outboundNotice([product.serial_number], { items: [{ serial_number: 7 }] })],
      [OUTBOUND, outboundNotice([product.serial_number], { items: [42] })],
    ];
    for (const [path, body] of bad) {
      const res = await post(path, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
    }
    const malformed = await t.request('POST', STOCK_IN, { headers: { 'x-api-key': KEY, 'content-type': 'application/json' }, body: '{"event_id":' });
    expect(malformed.statusCode).toBe(400);
    expect((await productRow(product.serial_number)).status).toBe('待仓库收货');
    expect(await auditCount()).toBe(audits);
  });

  it('refuses zero or negative quantities with 422 naming the field (contract §7), moving nothing', async () => {
    const product = await awaitingProduct();
    const events = await eventCount();
    for (const quantity of [0, -1]) {
      const stockIn = await post(STOCK_IN, stockInNotice(product.serial_number, { quantity }));
      expect(stockIn.statusCode, `stock-in ${quantity}`).toBe(422);
      expect(stockIn.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'quantity' });
      const outbound = await post(OUTBOUND, outboundNotice([product.serial_number], { items: [{ serial_number: product.serial_number, quantity }] }));
      expect(outbound.statusCode, `outbound ${quantity}`).toBe(422);
      expect(outbound.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: expect.stringContaining('quantity') });
    }
    expect((await productRow(product.serial_number)).status).toBe('待仓库收货');
    expect(await eventCount()).toBe(events);
    // a fractional positive quantity is a quantity like any other
    expect((await post(STOCK_IN, stockInNotice(product.serial_number, { quantity: 0.5 }))).json()).toEqual({ ok: true, matched: true });
  });
});

describe('identity card lookup GET /integrations/products/{sn}', () => {
  it('answers the product by serial (any case) with the webhook key, 404 for an unknown serial, 401 without the key', async () => {
    const product = await awaitingProduct('智能网关');
    await post(STOCK_IN, stockInNotice(null, { base_id: 4242, material_name: '智能网关', category: 'ALPHA/成品/网关' }));
    const res = await t.request('GET', `/api/v1/integrations/products/${product.serial_number.toLowerCase()}`, { headers: { 'x-api-key': KEY } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      serial_number: product.serial_number,
      model: '智能网关',
      base_id: 4242,
      category: 'ALPHA/成品/网关',
      status: '待仓库收货',
      lifecycle_phase: 'PRODUCTION',
      current_stage: '装配',
      department: 'ALPHA',
      completed_at: expect.any(String),
      stocked_in_at: null,
      shipped_at: null,
    });

    const unknown = await t.request('GET', '/api/v1/integrations/products/NOPE000000000009', { headers: { 'x-api-key': KEY } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await t.request('GET', `/api/v1/integrations/products/${product.serial_number}`)).statusCode).toBe(401);
    expect((await t.request('GET', `/api/v1/integrations/products/${product.serial_number}`, { token: t.adminToken })).statusCode).toBe(401);
  });

  it('names the model by base_id once the product is linked to an inventory material', async () => {
    const product = await awaitingProduct('智能控制器');
    await post(STOCK_IN, stockInNotice(product.serial_number, { base_id: 31337, category: 'ALPHA/成品/控制器二代', material_name: '智能控制器' }));
    const res = await t.request('GET', `/api/v1/integrations/products/${product.serial_number}`, { headers: { 'x-api-key': KEY } });
    expect(res.json()).toMatchObject({ base_id: 31337, category: 'ALPHA/成品/控制器二代', status: '已入库', stocked_in_at: expect.any(String) });
  });
});
