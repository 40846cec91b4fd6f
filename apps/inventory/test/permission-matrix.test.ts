/**
 * The permission matrix of the inventory service, endpoint by endpoint (spec §5 and 2.1, contract §3 and §7,
 * decisions Platform 4 / Outbound 6 / Borrow 3 / Scrap 6 / Purchasing 6 / BOM and import 11):
 *  - every guarded endpoint refuses a caller without its code with 403 FORBIDDEN { msg, code } before anything
 *    runs, and lets a caller holding any one of its codes (bridge included) through; login-only endpoints let
 *    a caller with no code at all through;
 *  - another company's ids are 404 and its barcodes 403 OTHER_COMPANY naming the company, and nothing is written;
 *  - lists and exports show the caller's company only; SUPER_ADMIN and crossDomain holders see every company
 *    and narrow with ?company, which an ordinary caller cannot use to look elsewhere;
 *  - a caller whose token carries no company matches nothing.
 */
import { sql } from 'drizzle-orm';
import { strFromU8, unzipSync } from 'fflate';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, queryRows, stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';
import { ADMIN, buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

const API = '/api/v1';
let counter = 0;
const next = () => ++counter;

/** The fields these tests read from the answers they build on. */
interface Answer {
  id: number;
  session_id: number;
  bom_version_id: number;
  batch_key: string;
  borrow_no: string;
  permissions: string[];
  company_name: string | null;
  lines: Array<{ id: number }>;
  requests: Array<{ id: number }>;
  ledger_entry: { id: number };
  [field: string]: unknown;
}

async function ok<T = Answer>(t: TestInventory, method: string, path: string, token: string, body?: unknown, status = 200): Promise<T> {
  const response = await t.request(method as 'GET', `${API}${path}`, { token, ...(body !== undefined ? { body } : {}) });
  if (response.statusCode !== status) throw new Error(`${method} ${path} → ${response.statusCode}: ${response.body}`);
  return response.json() as T;
}

/** One company's records of every kind, made through the API by its own manager and sales users. */
interface CompanyWorld {
  company: string;
  mgr: TestUser;
  sales: TestUser;
  sales2: TestUser;
  mat: MaterialJson;
  child: MaterialJson;
  row: StockRowJson;
  borrowRow: StockRowJson;
  location: string;
  pendingOutbound: number;
  approvedOutbound: number;
  outboundLine: number;
  ledgerEntry: number;
  pendingBorrow: number;
  approvedBorrow: number;
  borrowLine: number;
  borrowNo: string;
  transfer: number;
  scrapRequest: number;
  purchase: { id: number; batch_key: string };
  supplier: number;
  bomVersion: number;
  session: number;
  auditId: number;
}

async function companyWorld(t: TestInventory, company: string): Promise<CompanyWorld> {
  const mgr = await t.user('WAREHOUSE_MGR', company, { name: `${company}经理` });
  const sales = await t.user('SALES', company, { name: `${company}销售` });
  const sales2 = await t.user('SALES', company, { name: `${company}销售乙` });
  // a yellow threshold far above the stock puts the material in the pending pool
  const mat = await createMaterial(t, mgr.token, { category: `${company}/矩阵`, name: `${company}矩阵物料${next()}`, yellow_threshold: 100000 });
  const child = await createMaterial(t, mgr.token, { category: `${company}/矩阵`, name: `${company}矩阵子件${next()}` });
  const location = `${company}Z${next()}/01`;
  const row = await stockIn(t, mgr.token, { base_id: mat.id, in_quantity: 50, warehouse_location: location });
  const borrowRow = await stockIn(t, mgr.token, { base_id: child.id, in_quantity: 50, warehouse_location: location });

  const submit = async (quantity: number) =>
    (await ok(t, 'POST', '/outbound/request', sales.token, { outbound_type: 'USE', items: [{ base_id: mat.id, quantity }], remark: `m${next()}` }, 201)).id as number;
  const pendingOutbound = await submit(1);
  const approvedOutbound = await submit(1);
  await ok(t, 'POST', `/outbound/request/${approvedOutbound}/approve`, mgr.token);
  const shipped = await submit(3);
  await ok(t, 'POST', `/outbound/request/${shipped}/approve`, mgr.token);
  const execution = await ok(t, 'POST', '/outbound', mgr.token, { request_id: shipped, consumer_name: '领用人', lines: [{ barcode: row.sku, quantity: 3 }] }, 201);
  const outboundLine = execution.lines[0]!.id;
  const returned = await ok(t, 'POST', '/inbound/stock/return-from-outbound', mgr.token, { outbound_id: outboundLine, return_type: 'defective', quantity: 1, reason: `r${next()}` }, 201);

  const borrow = async (quantity: number) =>
    (await ok(t, 'POST', '/borrow/request', sales.token, { items: [{ base_id: child.id, quantity }], remark: `b${next()}` }, 201)).id as number;
  const pendingBorrow = await borrow(1);
  const approvedBorrow = await borrow(1);
  await ok(t, 'POST', `/borrow/request/${approvedBorrow}/approve`, mgr.token);
  const lent = await borrow(4);
  await ok(t, 'POST', `/borrow/request/${lent}/approve`, mgr.token);
  const slip = await ok(t, 'POST', '/borrow/dispatch', mgr.token, { request_id: lent, borrower_id: sales.id, lines: [{ barcode: borrowRow.sku, quantity: 4 }], location: '研发' }, 201);
  const borrowLine = slip.lines[0]!.id;
  const [, splitLine] = await ok<Array<{ id: number }>>(t, 'POST', `/borrow/${borrowLine}/split`, sales.token, { quantity: 1 });
  const transfer = (await ok(t, 'POST', `/borrow/${splitLine!.id}/transfer`, sales.token, { to_user_id: sales2.id }, 201)).id as number;

  const scrapRequest = (await ok(t, 'POST', '/scrap/request', mgr.token, {
    reason: `s${next()}`, items: [{ source_table: row.source_table, stock_id: row.id, scrap_qty: 1 }], approver_ids: [mgr.id],
  }, 201)).id as number;
  const purchased = await ok(t, 'POST', '/purchase', mgr.token, { items: [{ base_id: mat.id, quantity: 2, remark: `p${next()}` }] }, 201);
  const supplier = (await ok(t, 'POST', '/suppliers', mgr.token, { name: `${company}供应商${next()}` }, 201)).id as number;
  const bom = await ok(t, 'POST', '/bom/save', mgr.token, { parent_id: mat.id, items: [{ child_id: child.id, quantity: 1 }] });
  const session = (await ok(t, 'POST', '/draft/start-new', mgr.token, { mode: 'open', scope_type: 'full' }, 201)).session_id as number;
  await ok(t, 'POST', `/inbound/stock/${borrowRow.id}/move`, mgr.token, { to_location: `${location}/移入`, quantity: 1 });
  const [audit] = await queryRows<{ id: number }>(t, sql`select id from audit_logs where company_name = ${company} order by id limit 1`);
  return {
    company, mgr, sales, sales2, mat, child, row, borrowRow, location, pendingOutbound, approvedOutbound, outboundLine,
    ledgerEntry: returned.ledger_entry.id, pendingBorrow, approvedBorrow, borrowLine, borrowNo: slip.borrow_no, transfer,
    scrapRequest, purchase: { id: purchased.requests[0]!.id, batch_key: purchased.batch_key }, supplier,
    bomVersion: bom.bom_version_id, session, auditId: audit!.id,
  };
}

/** The business tables as text, to show that a refused call wrote nothing (alerts and mails run in the background). */
const BUSINESS_TABLES = [
  'materials', 'stock_rows', 'outbound_requests', 'trans_outbound', 'trans_return', 'trans_defective_goods', 'borrow_requests', 'trans_borrow',
  'trans_borrow_return', 'trans_borrow_transfer', 'scrap_requests', 'trans_scrap', 'purchase_requests', 'suppliers', 'bom_versions', 'bom_lines',
  'stocktake_sessions', 'stocktake_drafts', 'stocktake_adjustments', 'stock_moves', 'material_images', 'users', 'role_permissions',
];
async function businessSnapshot(t: TestInventory): Promise<string[]> {
  const snapshot: string[] = [];
  for (const table of BUSINESS_TABLES) {
    const [row] = await queryRows<{ text: string }>(
      t,
      sql`select count(*) || ':' || coalesce(md5(string_agg(x::text, '|' order by x::text)), '') as text from ${sql.identifier(table)} x`,
    );
    snapshot.push(`${table} ${row!.text}`);
  }
  return snapshot;
}

/** The answer as text, xlsx unpacked, to look for the company markers every record of the world carries. */
function textOf(response: LightMyRequestResponse): string {
  if (!String(response.headers['content-type']).includes('spreadsheetml')) return response.body;
  return Object.values(unzipSync(new Uint8Array(response.rawPayload))).map((part) => strFromU8(part)).join('\n');
}

const isGuardRefusal = (response: LightMyRequestResponse) =>
  response.statusCode === 403 && response.json().code === 'FORBIDDEN' && /^(缺少权限|仅超级管理员)/.test(response.json().msg);

let t: TestInventory;
let a: CompanyWorld;
let b: CompanyWorld;
let cross: TestUser;

beforeAll(async () => {
  t = await buildTestInventory();
  a = await companyWorld(t, 'ALPHA');
  b = await companyWorld(t, 'BETA');
  const supervisor = (await ok(t, 'GET', '/permissions/role/SUPERVISOR', t.adminToken)).permissions as string[];
  await ok(t, 'PUT', '/permissions/role/SUPERVISOR', t.adminToken, { permissions: [...supervisor, 'crossDomain', 'system_user'] });
  cross = await t.user('SUPERVISOR', 'ALPHA', { name: '跨公司主管' });
}, 180_000);
afterAll(() => t?.close());

// ---------------------------------------------------------------------------------------------------------
// (a) and (b): the guard of every endpoint

const SYS_USER = ['system_user', 'system_user:operation'];
const SYS_PERMISSION = ['system_permission', 'system_permission:operation'];
const MATERIAL_WRITE = ['material_list', 'material_list:operation'];
const BOM_WRITE = ['bom_manage', 'bom_manage:operation'];
const STOCK_WRITE = ['inbound_stock', 'inbound_stock:operation'];
const EXECUTE = ['outbound_create', 'outbound_create:operation'];
const BORROW_RETURN = ['op_return', 'op_return:operation'];
const STOCKTAKE = ['inventory_stocktake', 'inventory_stocktake:operation'];
const SCRAP_SOURCE = ['scrap_create', 'scrap_create:operation'];
const PURCHASE_OPERATE = ['inbound_purchase', 'inbound_purchase:operation'];
const SUPER_ADMIN_ONLY: string[] = [];

/** A path of the stock group, also served without the group (contract §2, decisions Stock rows 1). */
const stock = (method: string, path: string, codes: string[]): Array<[string, string, string[]]> => [
  [method, `/inbound/stock${path}`, codes],
  [method, `/stock${path}`, codes],
];
/** A borrow path, also served under /transactions/borrow (contract §2). */
const borrow = (method: string, path: string, codes: string[]): Array<[string, string, string[]]> => [
  [method, `/borrow${path}`, codes],
  [method, `/transactions/borrow${path}`, codes],
];

/** [method, path, the catalog codes any one of which passes the guard]; ids that exist nowhere. */
const GUARDED: Array<[string, string, string[]]> = [
  ['GET', '/audit/logs', ['system_audit']],
  ['GET', '/audit/logs/999999', ['system_audit']],
  ['GET', '/audit/logs/export', ['system_audit']],
  ['GET', '/users', SYS_USER],
  ['POST', '/users', SYS_USER],
  ['POST', '/users/batch', SYS_USER],
  ['PATCH', '/users/999999', SYS_USER],
  ['PUT', '/permissions/role/SALES', SYS_PERMISSION],
  ['POST', '/inbound/base', MATERIAL_WRITE],
  // an update needs any code that writes some field (decisions Materials 1, spec 2.3)
  ['PUT', '/inbound/base/999999', [...MATERIAL_WRITE, 'material_list:purchaseLink', 'material_list:referencePrice', 'material_list:remark_edit']],
  ['DELETE', '/inbound/base/999999', MATERIAL_WRITE],
  ['POST', '/bom/save', BOM_WRITE],
  ['POST', '/bom/draft/save', BOM_WRITE],
  ['POST', '/import/preview', [...MATERIAL_WRITE, ...BOM_WRITE]],
  ['POST', '/import/execute', [...MATERIAL_WRITE, ...BOM_WRITE]],
  ['POST', '/inbound/stock', STOCK_WRITE],
  ...stock('PUT', '/999999', STOCK_WRITE),
  ...stock('DELETE', '/999999', STOCK_WRITE),
  ...stock('POST', '/999999/change-status', ['stock_change_status']),
  ...stock('POST', '/return-from-outbound', ['outbound_return']),
  ...stock('GET', '/defective', ['defective_list']),
  ...stock('POST', '/defective/999999/restock', ['defective_restock']),
  ...stock('POST', '/defective/999999/scrap-request', ['defective_scrap']),
  ['POST', '/outbound/request', ['outbound_selection']],
  ['POST', '/outbound/request/999999/approve', ['outbound_approval']],
  ['POST', '/outbound/request/999999/reject', ['outbound_approval']],
  ['POST', '/outbound/request/999999/close', [...EXECUTE, 'outbound_approval']],
  ['POST', '/outbound', EXECUTE],
  ['GET', '/outbound/scan', EXECUTE],
  ['GET', '/outbound', [...EXECUTE, 'outbound_selection']],
  ['GET', '/outbound/alternatives', [...EXECUTE, 'outbound_selection']],
  ['POST', '/outbound/bom-match-stock', [...EXECUTE, 'outbound_selection']],
  ['GET', '/outbound/returns', ['outbound_return', 'outbound_return_list']],
  ...borrow('POST', '/request', ['op_borrow_apply']),
  ...borrow('GET', '/stock-list', ['op_borrow_apply']),
  ...borrow('POST', '/request/999999/approve', ['op_borrow_approval']),
  ...borrow('POST', '/request/999999/reject', ['op_borrow_approval']),
  ...borrow('POST', '/request/999999/close', ['op_borrow_approval']),
  ...borrow('POST', '/dispatch', ['op_borrow_dispatch']),
  ...borrow('POST', '/999999/return', BORROW_RETURN),
  ...borrow('POST', '/scrap-request', BORROW_RETURN),
  ['POST', '/scrap/request', ['scrap_apply', ...SCRAP_SOURCE]],
  ['POST', '/scrap/request/999999/execute', ['scrap_execute', ...SCRAP_SOURCE]],
  ['GET', '/scrap/scan', ['scrap_apply', 'scrap_execute', 'defective_scrap', ...SCRAP_SOURCE]],
  ['GET', '/scrap/records', ['scrap_list']],
  ['GET', '/scrap/records/export', ['scrap_list']],
  ['GET', '/purchase', ['inbound_buy']],
  ['GET', '/purchase/approved-unstocked', ['inbound_buy']],
  ['GET', '/purchase/pending-pool', ['inbound_purchase:pending_pool']],
  ['PATCH', '/purchase/999999/approve', PURCHASE_OPERATE],
  ['POST', '/purchase/batch-approve', PURCHASE_OPERATE],
  ['POST', '/suppliers', PURCHASE_OPERATE],
  ['GET', '/stocktake/companies', STOCKTAKE],
  ['GET', '/draft/active-session', STOCKTAKE],
  ['POST', '/draft/start-new', STOCKTAKE],
  ['POST', '/draft/clear', STOCKTAKE],
  ['GET', '/draft/list', STOCKTAKE],
  ['POST', '/draft/add', STOCKTAKE],
  ['GET', '/draft/merged-list', STOCKTAKE],
  ['GET', '/stocktake/all-items', STOCKTAKE],
  ['POST', '/stocktake/generate-missing', STOCKTAKE],
  ['POST', '/stocktake/update-quantity', STOCKTAKE],
  ['GET', '/stocktake/recommend-locations', STOCKTAKE],
  ['GET', '/warehouse/tree', STOCKTAKE],
  ['GET', '/export-stocktake', STOCKTAKE],
  ['GET', '/variance-report', STOCKTAKE],
  ['POST', '/adjust', STOCKTAKE],
  ['GET', '/scan', STOCKTAKE],
  ...stock('GET', '/reconcile', SUPER_ADMIN_ONLY),
  ['GET', '/integrations/outbox', SUPER_ADMIN_ONLY],
  ['GET', '/mail/outbox', SUPER_ADMIN_ONLY],
];

/** Endpoints that need only a login (contract §3, spec 4.1–4.9): a caller without any code is not refused by a guard. */
const LOGIN_ONLY: Array<[string, string]> = [
  ['GET', '/auth/me'],
  ['GET', '/permissions/role/INBOUND'], // its own role (spec 4.9)
  ['GET', '/inbound/base'],
  ['GET', '/inbound/base/999999'],
  ['GET', '/inbound/base/export'],
  ['GET', '/inbound/base/ext-summary'],
  ['GET', '/inbound/stock/list'],
  ['GET', '/stock/list'],
  ['GET', '/inbound/stock/999999'],
  ['GET', '/inbound/stock/scan'],
  ['GET', '/outbound/request'],
  ['GET', '/outbound/request/999999'],
  ['GET', '/outbound/my-requests'],
  ['POST', '/outbound/request/999999/withdraw'],
  ['GET', '/borrow/request'],
  ['POST', '/borrow/request/999999/withdraw'],
  ['GET', '/borrow/records'],
  ['GET', '/borrow/users'],
  ['GET', '/borrow/999999/history'],
  ['GET', '/borrow/transfer/pending-count'],
  ['POST', '/borrow/999999/transfer'],
  ['POST', '/borrow/999999/split'],
  ['POST', '/borrow/transfer/999999/accept'],
  ['POST', '/borrow/transfer/999999/reject'],
  ['POST', '/borrow/transfer/reject-ack'],
  ['GET', '/scrap/request'],
  ['POST', '/scrap/request/999999/approve'],
  ['POST', '/scrap/request/999999/reject'],
  ['POST', '/scrap/request/999999/withdraw'],
  ['POST', '/purchase'],
  ['GET', '/purchase/999999'],
  ['GET', '/purchase/approvers'],
  ['GET', '/purchase/search-material'],
  ['GET', '/purchase/auto-fill'],
  ['GET', '/suppliers'],
  ['GET', '/bom/summary'],
  ['GET', '/bom/list'],
  ['GET', '/audit/modules'],
  ['GET', '/audit/labels'],
  ['GET', '/common/active-users'],
  ['GET', '/common/my-requests'],
  ['GET', '/scan-draft/overview'],
  ['POST', '/scan-draft'],
  ['POST', '/inbound/stock/labels'],
];

describe('the guard of every endpoint (spec §5, contract §3)', () => {
  it('refuses a caller without the code with 403 FORBIDDEN { msg, code } and lets any one of its codes through', async () => {
    const { PERMISSION_CATALOG } = await import('../src/modules/identity/permission-catalog.js');
    const defaults = (await ok(t, 'GET', '/permissions/role/INBOUND', t.adminToken)).permissions as string[];
    const grant = (permissions: string[]) => ok(t, 'PUT', '/permissions/role/INBOUND', t.adminToken, { permissions });
    const before = await businessSnapshot(t);
    try {
      await grant([]);
      const caller = await t.user('INBOUND', 'ALPHA');
      const call = (method: string, path: string) => t.request(method as 'GET', `${API}${path}`, { token: caller.token });

      for (const [method, path] of GUARDED.map(([m, p]) => [m, p])) {
        const refused = await call(method!, path!);
        expect(refused.statusCode, `${method} ${path}`).toBe(403);
        expect(refused.json(), `${method} ${path}`).toEqual({ code: 'FORBIDDEN', msg: expect.stringMatching(/^(缺少权限: |仅超级管理员)/) });
      }
      for (const [method, path] of LOGIN_ONLY) expect(isGuardRefusal(await call(method, path)), `${method} ${path}`).toBe(false);

      const passedBy = new Map<string, string[]>(GUARDED.map(([method, path]) => [`${method} ${path}`, []]));
      for (const code of PERMISSION_CATALOG) {
        await grant([code]);
        for (const [method, path] of GUARDED) if (!isGuardRefusal(await call(method, path))) passedBy.get(`${method} ${path}`)!.push(code);
      }
      for (const [method, path, codes] of GUARDED) expect(passedBy.get(`${method} ${path}`), `${method} ${path}`).toEqual(expect.arrayContaining(codes));
      for (const [method, path, codes] of GUARDED) expect(passedBy.get(`${method} ${path}`)!.sort(), `${method} ${path}`).toEqual([...codes].sort());

      // SUPER_ADMIN passes every guard, the SUPER_ADMIN-only ones included
      for (const [method, path] of GUARDED) expect(isGuardRefusal(await t.request(method as 'GET', `${API}${path}`, { token: t.adminToken })), `${method} ${path}`).toBe(false);
    } finally {
      await grant(defaults);
    }
    // a refusal runs nothing: the guard answers before validation, locks and handlers
    expect(await businessSnapshot(t)).toEqual(before.map((line) => (line.startsWith('users ') || line.startsWith('role_permissions ') ? expect.any(String) : line)));
  }, 300_000);

  it('splits the import by kind: material import needs material_list:operation, BOM import bom_manage:operation', async () => {
    const defaults = (await ok(t, 'GET', '/permissions/role/OUTBOUND', t.adminToken)).permissions as string[];
    try {
      await ok(t, 'PUT', '/permissions/role/OUTBOUND', t.adminToken, { permissions: ['bom_manage:operation'] });
      const bomKeeper = await t.user('OUTBOUND', 'ALPHA');
      const material = await t.request('GET', `${API}/import/template?type=material`, { token: bomKeeper.token });
      expect(material.statusCode).toBe(403);
      expect(material.json()).toMatchObject({ code: 'FORBIDDEN', msg: expect.stringContaining('material_list:operation') });
      expect((await t.request('GET', `${API}/import/template?type=bom`, { token: bomKeeper.token })).statusCode).toBe(200);

      await ok(t, 'PUT', '/permissions/role/OUTBOUND', t.adminToken, { permissions: ['material_list:operation'] });
      const bom = await t.request('GET', `${API}/import/template?type=bom`, { token: bomKeeper.token });
      expect(bom.statusCode).toBe(403);
      expect(bom.json()).toMatchObject({ code: 'FORBIDDEN', msg: expect.stringContaining('bom_manage:operation') });
      expect((await t.request('GET', `${API}/import/template?type=material`, { token: bomKeeper.token })).statusCode).toBe(200);
    } finally {
      await ok(t, 'PUT', '/permissions/role/OUTBOUND', t.adminToken, { permissions: defaults });
    }
  });

  it('checks ownership and holding inside the company: 403 with the rule\'s code, or 404 where the caller may not see the record, and writes nothing', async () => {
    const before = await businessSnapshot(t);
    const expectRefused = async (user: TestUser, method: string, path: string, status: number, code: string, body?: unknown) => {
      const response = await t.request(method as 'GET', `${API}${path}`, { token: user.token, ...(body !== undefined ? { body } : {}) });
      expect(response.statusCode, `${method} ${path}`).toBe(status);
      expect(response.json(), `${method} ${path}`).toMatchObject({ code, msg: expect.any(String) });
    };
    // withdraw: the applicant only (spec 4.1, 4.3, 4.4), else 403
    await expectRefused(a.sales2, 'POST', `/outbound/request/${a.pendingOutbound}/withdraw`, 403, 'NOT_OWNER');
    await expectRefused(a.sales2, 'POST', `/borrow/request/${a.pendingBorrow}/withdraw`, 403, 'NOT_OWNER');
    await expectRefused(a.sales2, 'POST', `/scrap/request/${a.scrapRequest}/withdraw`, 403, 'NOT_OWNER');
    // someone else's request is not in an ordinary caller's view (contract §4 "outbound_approval, or own")
    await expectRefused(a.sales2, 'GET', `/outbound/request/${a.pendingOutbound}`, 404, 'NOT_FOUND');
    await expectRefused(a.sales2, 'GET', `/borrow/request/${a.pendingBorrow}`, 404, 'NOT_FOUND');
    await expectRefused(a.sales2, 'GET', `/scrap/request/${a.scrapRequest}`, 404, 'NOT_FOUND');
    // return, transfer and split: the current holder only (spec §7), even for a holder of every borrow code
    await expectRefused(a.mgr, 'POST', `/borrow/${a.borrowLine}/return`, 403, 'NOT_HOLDER', { quantity: 1 });
    await expectRefused(a.mgr, 'POST', `/borrow/${a.borrowLine}/transfer`, 403, 'NOT_HOLDER', { to_user_id: a.sales2.id });
    await expectRefused(a.mgr, 'POST', `/borrow/${a.borrowLine}/split`, 403, 'NOT_HOLDER', { quantity: 1 });
    // accept and reject: the receiver only; reject-ack: the initiator only
    await expectRefused(a.mgr, 'POST', `/borrow/transfer/${a.transfer}/accept`, 403, 'NOT_RECEIVER');
    await expectRefused(a.sales, 'POST', `/borrow/transfer/${a.transfer}/reject`, 403, 'NOT_RECEIVER', { reason: '不要' });
    await expectRefused(a.sales2, 'POST', '/borrow/transfer/reject-ack', 403, 'FORBIDDEN', { transfer_ids: [a.transfer] });
    // scrap approval: membership of allowed_approvers only, 400 (spec §7), SUPER_ADMIN included
    await expectRefused(cross, 'POST', `/scrap/request/${a.scrapRequest}/approve`, 400, 'NOT_APPROVER');
    await expectRefused({ ...cross, token: t.adminToken }, 'POST', `/scrap/request/${a.scrapRequest}/reject`, 400, 'NOT_APPROVER', { reason: 'x' });
    // purchase detail and batch of others: inbound_purchase (contract §3)
    await expectRefused(a.sales2, 'GET', `/purchase/${a.purchase.id}`, 403, 'FORBIDDEN');
    await expectRefused(a.sales2, 'GET', `/purchase/batch?batch_key=${a.purchase.batch_key}`, 403, 'FORBIDDEN');
    expect(await businessSnapshot(t)).toEqual(before);
  });
});

// ---------------------------------------------------------------------------------------------------------
// (c) company isolation

describe('another company\'s records (spec 2.1, contract §3 and §7)', () => {
  it('answers another company\'s ids with 404 and its barcodes with 403 OTHER_COMPANY naming it, and writes nothing', async () => {
    const before = await businessSnapshot(t);
    const m = a.mgr.token;
    const cases: Array<[method: string, path: string, body: unknown, status: number, code: string]> = [
      ['GET', `/inbound/base/${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['PUT', `/inbound/base/${b.mat.id}`, { name: '改名' }, 404, 'NOT_FOUND'],
      ['DELETE', `/inbound/base/${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/inbound/base/${b.mat.id}/images`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/inbound/stock/${b.row.id}`, undefined, 404, 'NOT_FOUND'],
      ['PUT', `/inbound/stock/${b.row.id}`, { stock_quantity: 49 }, 404, 'NOT_FOUND'],
      ['DELETE', `/stock/${b.row.id}`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/inbound/stock/${b.row.id}/change-status`, { status: '冻结' }, 404, 'NOT_FOUND'],
      ['POST', `/inbound/stock/${b.row.id}/move`, { to_location: 'ALPHA-X/1' }, 404, 'NOT_FOUND'],
      ['GET', `/inbound/stock/${b.row.id}/moves`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/inbound/stock', { source_table: 'stock_buy', base_id: b.mat.id, in_quantity: 1, warehouse_location: 'A' }, 404, 'NOT_FOUND'],
      ['POST', '/inbound/stock/labels', { ids: [b.row.id] }, 404, 'NOT_FOUND'],
      ['POST', '/warehouse/location-labels', { locations: [b.location] }, 404, 'NOT_FOUND'],
      ['GET', `/outbound/request/${b.pendingOutbound}`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/outbound/request/${b.pendingOutbound}/approve`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/outbound/request/${b.pendingOutbound}/reject`, { reason: 'x' }, 404, 'NOT_FOUND'],
      ['POST', `/outbound/request/${b.pendingOutbound}/withdraw`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/outbound/request/${b.approvedOutbound}/close`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/outbound/request', { outbound_type: 'USE', items: [{ base_id: b.mat.id, quantity: 1 }] }, 404, 'NOT_FOUND'],
      ['GET', `/outbound/scan?barcode=${a.row.sku}&request_id=${b.approvedOutbound}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/outbound/alternatives?base_id=${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/outbound', { request_id: b.approvedOutbound, lines: [{ barcode: b.row.sku, quantity: 1 }] }, 404, 'NOT_FOUND'],
      ['POST', '/inbound/stock/return-from-outbound', { outbound_id: b.outboundLine, return_type: 'good', quantity: 1, reason: 'x' }, 404, 'NOT_FOUND'],
      ['POST', '/inbound/stock/return-from-outbound', { outbound_id: a.outboundLine, return_type: 'good', quantity: 1, reason: 'y', need_reissue: true, reissue_applicant_id: b.sales.id }, 404, 'NOT_FOUND'],
      ['POST', `/inbound/stock/defective/${b.ledgerEntry}/restock`, { quantity: 1 }, 404, 'NOT_FOUND'],
      ['POST', `/stock/defective/${b.ledgerEntry}/scrap-request`, { quantity: 1, reason: 'x' }, 404, 'NOT_FOUND'],
      ['GET', `/borrow/request/${b.pendingBorrow}`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/borrow/request/${b.pendingBorrow}/approve`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/transactions/borrow/request/${b.pendingBorrow}/reject`, { reason: 'x' }, 404, 'NOT_FOUND'],
      ['POST', `/borrow/request/${b.approvedBorrow}/close`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/borrow/request/${b.pendingBorrow}/withdraw`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/borrow/request', { items: [{ base_id: b.child.id, quantity: 1 }] }, 404, 'NOT_FOUND'],
      ['POST', '/borrow/dispatch', { request_id: b.approvedBorrow, borrower_id: b.sales.id, lines: [{ barcode: b.borrowRow.sku, quantity: 1 }], location: 'x' }, 404, 'NOT_FOUND'],
      ['POST', '/borrow/dispatch', { request_id: a.approvedBorrow, borrower_id: b.sales.id, lines: [{ barcode: a.borrowRow.sku, quantity: 1 }], location: 'x' }, 404, 'NOT_FOUND'],
      ['GET', `/borrow/${b.borrowLine}/history`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/borrow/slip/${b.borrowNo}/history`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/borrow/${b.borrowLine}/return`, { quantity: 1 }, 404, 'NOT_FOUND'],
      ['POST', `/borrow/${b.borrowLine}/transfer`, { to_user_id: a.sales2.id }, 404, 'NOT_FOUND'],
      ['POST', `/borrow/${b.borrowLine}/split`, { quantity: 1 }, 404, 'NOT_FOUND'],
      ['POST', `/borrow/transfer/${b.transfer}/accept`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/borrow/transfer/${b.transfer}/reject`, { reason: 'x' }, 404, 'NOT_FOUND'],
      ['POST', '/borrow/transfer/reject-ack', { transfer_ids: [b.transfer] }, 404, 'NOT_FOUND'],
      ['POST', '/borrow/scrap-request', { borrow_ids: [b.borrowLine], reason: 'x' }, 404, 'NOT_FOUND'],
      ['GET', `/scrap/request/${b.scrapRequest}`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/scrap/request/${b.scrapRequest}/approve`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/scrap/request/${b.scrapRequest}/reject`, { reason: 'x' }, 404, 'NOT_FOUND'],
      ['POST', `/scrap/request/${b.scrapRequest}/withdraw`, undefined, 404, 'NOT_FOUND'],
      ['POST', `/scrap/request/${b.scrapRequest}/execute`, { scans: [{ barcode: b.row.sku, quantity: 1 }] }, 404, 'NOT_FOUND'],
      ['POST', '/scrap/request', { reason: 'x', items: [{ source_table: b.row.source_table, stock_id: b.row.id, scrap_qty: 1 }] }, 404, 'NOT_FOUND'],
      ['POST', '/scrap/request', { reason: 'x', items: [{ source_table: a.row.source_table, stock_id: a.row.id, scrap_qty: 1 }], approver_ids: [b.mgr.id] }, 404, 'NOT_FOUND'],
      ['GET', `/scrap/scan?barcode=${a.row.sku}&request_id=${b.scrapRequest}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/purchase/${b.purchase.id}`, undefined, 404, 'NOT_FOUND'],
      ['PATCH', `/purchase/${b.purchase.id}/approve`, { action: 'approve' }, 404, 'NOT_FOUND'],
      ['POST', '/purchase/batch-approve', { batch_key: b.purchase.batch_key, action: 'approve' }, 404, 'NOT_FOUND'],
      ['GET', `/purchase/batch?batch_key=${b.purchase.batch_key}`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/purchase', { items: [{ base_id: b.mat.id, quantity: 1 }] }, 404, 'NOT_FOUND'],
      ['POST', '/purchase', { items: [{ base_id: a.mat.id, quantity: 1, supplier_id: b.supplier }] }, 404, 'NOT_FOUND'],
      ['GET', `/purchase/auto-fill?base_id=${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/suppliers/${b.supplier}`, undefined, 404, 'NOT_FOUND'],
      ['PUT', `/suppliers/${b.supplier}`, { contact: 'x' }, 404, 'NOT_FOUND'],
      ['DELETE', `/suppliers/${b.supplier}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/bom/${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/bom/${b.mat.id}/versions`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/bom/versions/${b.bomVersion}/serials`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/bom/draft?parent_id=${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['DELETE', `/bom/draft?parent_id=${b.mat.id}`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/bom/save', { parent_id: b.mat.id, items: [{ child_id: b.child.id, quantity: 2 }] }, 404, 'NOT_FOUND'],
      ['POST', '/bom/draft/save', { parent_id: a.mat.id, items: [{ child_id: b.child.id, quantity: 2 }] }, 404, 'NOT_FOUND'],
      ['GET', `/audit/logs/${b.auditId}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/draft/list?session_id=${b.session}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/draft/merged-list?session_id=${b.session}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/stocktake/all-items?session_id=${b.session}`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/draft/add', { session_id: b.session, barcode: b.row.sku, quantity: 1 }, 404, 'NOT_FOUND'],
      ['POST', '/stocktake/update-quantity', { session_id: b.session, stock_id: b.row.id, source_table: 'stock_buy', quantity: 1 }, 404, 'NOT_FOUND'],
      ['GET', `/variance-report?session_id=${b.session}`, undefined, 404, 'NOT_FOUND'],
      ['GET', `/export-stocktake?session_id=${b.session}`, undefined, 404, 'NOT_FOUND'],
      ['POST', '/adjust', { session_id: b.session }, 404, 'NOT_FOUND'],
      ['POST', '/stocktake/generate-missing', { session_id: b.session }, 404, 'NOT_FOUND'],
      ['POST', '/draft/clear', { session_id: b.session }, 404, 'NOT_FOUND'],
      // barcodes of another company on the scan endpoints: 403 naming the company
      ['GET', `/inbound/stock/scan?barcode=${b.row.sku}`, undefined, 403, 'OTHER_COMPANY'],
      ['GET', `/outbound/scan?barcode=${b.row.sku}`, undefined, 403, 'OTHER_COMPANY'],
      ['POST', '/outbound', { request_id: a.approvedOutbound, lines: [{ barcode: b.row.sku, quantity: 1 }] }, 403, 'OTHER_COMPANY'],
      ['POST', '/borrow/dispatch', { request_id: a.approvedBorrow, borrower_id: a.sales.id, lines: [{ barcode: b.borrowRow.sku, quantity: 1 }], location: 'x' }, 403, 'OTHER_COMPANY'],
      ['GET', `/scrap/scan?barcode=${b.row.sku}`, undefined, 403, 'OTHER_COMPANY'],
      ['POST', '/draft/add', { session_id: a.session, barcode: b.row.sku, quantity: 1 }, 403, 'OTHER_COMPANY'],
      ['GET', `/scan?barcode=${b.row.sku}&session_id=${a.session}`, undefined, 403, 'OTHER_COMPANY'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const response = await t.request(method as 'GET', `${API}${path}`, { token: m, ...(body !== undefined ? { body } : {}) });
      expect(response.statusCode, `${method} ${path} ${response.body}`).toBe(status);
      expect(response.json(), `${method} ${path}`).toMatchObject({ code, msg: expect.any(String) });
      if (code === 'OTHER_COMPANY') expect(response.json().company, `${method} ${path}`).toBe('BETA');
      expect(response.body, `${method} ${path}`).not.toContain('BETA矩阵');
    }
    // a batch decision reports another company's id as a failure, not a success
    const batch = await ok(t, 'POST', '/purchase/batch-approve', m, { ids: [b.purchase.id], action: 'approve' });
    expect(batch).toMatchObject({ success: [], failed: [{ id: b.purchase.id, code: 'NOT_FOUND' }] });
    expect(await ok(t, 'POST', '/outbound/bom-match-stock', m, { child_ids: [b.mat.id] })).toEqual([]);
    expect(await businessSnapshot(t)).toEqual(before);
  }, 120_000);

  it('lets SUPER_ADMIN and crossDomain holders reach every company\'s records', async () => {
    for (const token of [t.adminToken, cross.token]) {
      for (const path of [
        `/inbound/base/${b.mat.id}`, `/inbound/stock/${b.row.id}`, `/inbound/stock/scan?barcode=${b.row.sku}`, `/outbound/request/${b.pendingOutbound}`,
        `/outbound/scan?barcode=${b.row.sku}&request_id=${b.approvedOutbound}`, `/borrow/request/${b.pendingBorrow}`, `/borrow/${b.borrowLine}/history`,
        `/scrap/request/${b.scrapRequest}`, `/scrap/scan?barcode=${b.row.sku}`, `/purchase/${b.purchase.id}`, `/suppliers/${b.supplier}`, `/bom/${b.mat.id}`,
        `/audit/logs/${b.auditId}`, `/draft/merged-list?session_id=${b.session}`, `/scan?barcode=${b.row.sku}&session_id=${b.session}`,
      ]) {
        const response = await t.request('GET', `${API}${path}`, { token });
        expect(response.statusCode, `${path} ${response.body}`).toBe(200);
        expect(response.body, path).toContain('BETA');
      }
    }
  });

  it('makes crossDomain holders name company_name on every create (400 COMPANY_REQUIRED, nothing written)', async () => {
    const before = await businessSnapshot(t);
    for (const [path, body] of [
      ['/inbound/base', { name: '跨公司物料', category: 'ALPHA/x' }],
      ['/inbound/stock', { source_table: 'stock_buy', base_id: b.mat.id, in_quantity: 1, warehouse_location: 'A' }],
      ['/outbound/request', { outbound_type: 'USE', items: [{ base_id: b.mat.id, quantity: 1 }] }],
      ['/borrow/request', { items: [{ base_id: b.child.id, quantity: 1 }] }],
      ['/scrap/request', { reason: 'x', items: [{ source_table: 'stock_buy', stock_id: b.row.id, scrap_qty: 1 }] }],
      ['/purchase', { items: [{ base_id: b.mat.id, quantity: 1 }] }],
      ['/suppliers', { name: '跨公司供应商' }],
      ['/draft/start-new', { mode: 'open', scope_type: 'full' }],
      ['/users', { username: `cross_${next()}`, password: 'password-1', name: 'x', role: 'SALES' }],
    ] as const) {
      const response = await t.request('POST', `${API}${path}`, { token: cross.token, body });
      expect(response.statusCode, `${path} ${response.body}`).toBe(400);
      expect(response.json(), path).toMatchObject({ code: 'COMPANY_REQUIRED', field: 'company_name', msg: expect.any(String) });
    }
    expect(await businessSnapshot(t)).toEqual(before);
  });
});

/** Lists and exports, each showing records of both companies when unfiltered (every record carries its company's name). */
const LISTS = [
  '/inbound/base', '/inbound/base/ext-summary', '/inbound/base/export', '/inbound/stock/list', '/stock/list', '/inbound/stock/export', '/stock/moves',
  '/outbound/request', '/outbound', '/outbound/returns', '/stock/defective', '/borrow/request', '/borrow/records', '/borrow/stock-list',
  '/borrow/users', '/common/active-users', '/scrap/request', '/scrap/records', '/scrap/records/export', '/purchase', '/purchase/pending-pool',
  '/purchase/approved-unstocked', '/purchase/search-material?keyword=矩阵', '/suppliers', '/bom/summary', '/bom/list', '/audit/logs?limit=200',
  '/audit/logs/export', '/audit/daily-report', '/warehouse/tree', '/stocktake/recommend-locations', '/users',
];

describe('lists and exports (spec 2.1)', () => {
  beforeAll(async () => {
    // an executed scrap and an approved purchase in each company, so every list has something of both
    for (const w of [a, b]) {
      await ok(t, 'POST', `/scrap/request/${w.scrapRequest}/approve`, w.mgr.token);
      await ok(t, 'POST', `/scrap/request/${w.scrapRequest}/execute`, w.mgr.token, { scans: [{ barcode: w.row.sku, quantity: 1 }] });
      await ok(t, 'PATCH', `/purchase/${w.purchase.id}/approve`, w.mgr.token, { action: 'approve' });
    }
  });

  const read = async (token: string, path: string) => {
    const response = await t.request('GET', `${API}${path}`, { token });
    expect(response.statusCode, `${path} ${response.body.slice(0, 200)}`).toBe(200);
    const text = textOf(response);
    return { alpha: text.includes('ALPHA'), beta: text.includes('BETA') };
  };
  const withCompany = (path: string, company: string) => `${path}${path.includes('?') ? '&' : '?'}company=${company}`;

  it('shows SUPER_ADMIN and crossDomain holders every company, and narrows them with ?company', async () => {
    for (const path of LISTS) {
      for (const token of [t.adminToken, cross.token]) {
        expect(await read(token, path), path).toEqual({ alpha: true, beta: true });
        expect(await read(token, withCompany(path, 'BETA')), withCompany(path, 'BETA')).toEqual({ alpha: false, beta: true });
      }
    }
  }, 120_000);

  it('shows an ordinary caller its own company only, whatever ?company says', async () => {
    for (const path of LISTS.filter((path) => path !== '/users')) {
      expect(await read(a.mgr.token, path), path).toEqual({ alpha: true, beta: false });
      expect(await read(a.mgr.token, withCompany(path, 'BETA')), withCompany(path, 'BETA')).toEqual({ alpha: true, beta: false });
    }
    const session = await ok(t, 'GET', '/draft/active-session?company=BETA', a.mgr.token);
    expect(session.session_id).toBe(a.session);
    expect((await ok(t, 'GET', '/draft/active-session?company=BETA', t.adminToken)).session_id).toBe(b.session);
  }, 120_000);

  // last: it turns the bootstrap administrator into a company-less warehouse manager
  it('matches nothing for a caller whose token carries no company', async () => {
    const otherAdmin = await t.user('SUPER_ADMIN', 'ALPHA');
    const me = await ok(t, 'GET', '/auth/me', t.adminToken);
    expect(me.company_name).toBeNull();
    await ok(t, 'PATCH', `/users/${me.id}`, otherAdmin.token, { role: 'WAREHOUSE_MGR' });
    const token = (await t.login(ADMIN.username, ADMIN.password)).json().token as string;
    for (const path of LISTS.filter((path) => path !== '/users')) {
      expect(await read(token, path), path).toEqual({ alpha: false, beta: false });
      expect(await read(token, withCompany(path, 'BETA')), withCompany(path, 'BETA')).toEqual({ alpha: false, beta: false });
    }
    for (const path of [`/inbound/base/${a.mat.id}`, `/inbound/stock/${a.row.id}`, `/outbound/request/${a.pendingOutbound}`, `/purchase/${a.purchase.id}`]) {
      expect((await t.request('GET', `${API}${path}`, { token })).statusCode, path).toBe(404);
    }
     // no company, no active stocktake session: null, and all-items of no session (spec 2.1, 4.6)
    const active = await t.request('GET', `${API}/draft/active-session`, { token });
    expect(active.statusCode).toBe(200);
    expect(active.json()).toBeNull();
    expect((await ok(t, 'GET', '/stocktake/all-items', token)).session_id).toBeNull();
  });
});
