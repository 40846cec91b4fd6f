import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRIGGER_MODULES } from '../src/modules/audit/modules.js';
import { auditApi, auditLogs, readWorkbook, storeAudit, summaryOfSheet, type AuditLogJson } from './audit-fixtures.js';
import { createMaterial, queryRows, stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

let t: TestInventory;
let mgr: TestUser;
let sales: TestUser;
let betaMgr: TestUser;
let material: MaterialJson;
let row: StockRowJson;

const query = (params: Record<string, string>) => `&${new URLSearchParams(params).toString()}`;
const get = (path: string, token?: string) => t.request('GET', auditApi(path), { token });

/** Credentials stored deep inside one record's payload; none may ever come out. */
const SECRETS = ['hunter2-pw', 'tok-zzz', 'cs-yyy', 'pk-xxx', 'pwd-www'];
let secretId: number;

beforeAll(async () => {
  t = await buildTestInventory();
  mgr = await t.user('WAREHOUSE_MGR', 'ALPHA', { name: '仓管甲' });
  sales = await t.user('SALES', 'ALPHA');
  betaMgr = await t.user('WAREHOUSE_MGR', 'BETA', { name: '仓管乙' });
  material = await createMaterial(t, mgr.token, { name: '电阻A', spec_model: '10K', unit: '个' });
  row = await stockIn(t, mgr.token, { base_id: material.id, in_quantity: 2.5, warehouse_location: 'A/01' });
  const edited = await t.request('PUT', `/api/v1/inbound/stock/${row.id}`, { token: mgr.token, body: { stock_quantity: 1 } });
  expect(edited.statusCode, edited.body).toBe(200);
  await createMaterial(t, betaMgr.token, { name: 'BETA专用物料' });
  secretId = await storeAudit(t, {
    module: '采购入库',
    action: '新增',
    table_name: 'purchase_requests',
    target_id: '77',
    target_name: 'SECRET-REC',
    username: mgr.username,
    company_name: 'ALPHA',
    request_url: '/api/v1/purchase?batch=1',
    details: {
      payload: {
        items: [
          { name: '螺丝', quantity: 3, password: 'hunter2-pw' },
          { name: '垫片', nested: { api_token: 'tok-zzz', list: [{ client_secret: 'cs-yyy', kept: 'ok' }] } },
        ],
        remark: '<急件>',
        owner: '<User 5>',
        private_key: 'pk-xxx',
        passwd: 'pwd-www',
      },
    },
  });
});
afterAll(() => t?.close());

const only = async (params: Record<string, string>, token = mgr.token): Promise<AuditLogJson> => {
  const page = await auditLogs(t, token, query(params));
  expect(page.items, JSON.stringify(page.items)).toHaveLength(1);
  return page.items[0]!;
};

describe('GET /audit/logs: what a stock-in looks like', () => {
  it('lists a stock-in under 库存管理 (and the 入库 group) with the two-slot summary, its source and Beijing time', async () => {
    const record = await only({ module: '入库', action: 'CREATE', target_keyword: row.sku.toLowerCase() });
    expect(record).toMatchObject({
      module: '库存管理',
      module_label: '库存管理',
      action: 'CREATE',
      action_label: '新增',
      table_name: 'stock_rows',
      target_id: String(row.id),
      target_name: row.sku,
      target_display: `${row.sku} - 电阻A (10K)`,
      summary: '数量: 2.5 个; 库位: A/01 (来源:/inbound/stock)',
      username: mgr.username,
      user_display: '仓管甲',
      company_name: 'ALPHA',
      source: '/inbound/stock',
    });
    expect(record.time).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+08:00$/);
    expect(record.details.created).toMatchObject({ sku: row.sku, base_id: material.id });
  });

  it('summarises an edit as label: old→new joined by semicolons, quantities without a trailing .0', async () => {
    const record = await only({ module: '库存管理', action: 'UPDATE', target_keyword: row.sku });
    expect(record.summary).toBe(`可用数量: 2.5→1; 库存数量: 2.5→1 (来源:/inbound/stock/${row.id})`);
    expect(record.target_display).toBe(`${row.sku} - 电阻A (10K)`);
  });

  it('drops a purely numeric unit and a meaningless .0 in the quantity slot', async () => {
    const odd = await createMaterial(t, mgr.token, { name: '怪单位物料', spec_model: '', unit: '1' });
    const oddRow = await stockIn(t, mgr.token, { base_id: odd.id, in_quantity: 5, warehouse_location: 'B/02' });
    const record = await only({ action: 'CREATE', target_keyword: oddRow.sku });
    expect(record.summary).toBe('数量: 5; 库位: B/02 (来源:/inbound/stock)');
    expect(record.target_display).toBe(`${oddRow.sku} - 怪单位物料`);

    await storeAudit(t, {
      module: '库存管理', action: 'CREATE', table_name: 'stock_rows', target_id: '999001', target_name: 'DOT-ZERO', company_name: 'ALPHA',
      details: { created: { sku: 'DOT-ZERO', base_id: material.id, stock_quantity: '5.000', warehouse_location: 'C/1' } },
    });
    expect((await only({ target_keyword: 'DOT-ZERO' })).summary).toBe('数量: 5 个; 库位: C/1');
  });

  it('records users and role grants under 系统管理', async () => {
    const records = await auditLogs(t, t.adminToken, query({ module: '系统管理', target_keyword: mgr.username }));
    expect(records.items.map((record) => [record.module, record.action])).toEqual([['系统管理', 'CREATE']]);
  });
});

describe('GET /audit/logs: filters', () => {
  const stored: Record<string, number> = {};
  beforeAll(async () => {
    const aliases = ['新增', '创建', '添加', 'INSERT', '修改', '编辑', '更新', '删除', '移除'];
    for (const action of aliases) {
      stored[action] = await storeAudit(t, { module: 'legacy_mod', action, target_name: `Alias-${action}`, company_name: 'ALPHA' });
    }
    for (const [at, name] of [
      ['2024-03-01T15:59:59.999Z', 'day-1-last'],
      ['2024-03-01T16:00:00.000Z', 'day-2-first'],
      ['2024-03-02T15:59:59.999Z', 'day-2-last'],
      ['2024-03-02T16:00:00.000Z', 'day-3-first'],
    ] as const) {
      await storeAudit(t, { module: 'legacy_mod', action: 'UPDATE', target_name: name, company_name: 'ALPHA', created_at: at });
    }
    await storeAudit(t, { module: '入库管理', action: 'CREATE', target_id: 'OLD-IN-1', company_name: 'ALPHA' });
    await storeAudit(t, { module: '成品入库', action: 'DELETE', target_id: 'OLD-IN-2', company_name: 'ALPHA' });
    await storeAudit(t, { module: 'purchase_request', action: 'CREATE', target_id: 'EN-1', company_name: 'ALPHA' });
    await storeAudit(t, { module: 'image_embeddings', action: 'UPDATE', target_id: 'EN-2', company_name: 'BETA' });
  });

  it('folds the historical Chinese aliases into CREATE, UPDATE and DELETE, in answers and in the filter', async () => {
    const all = await auditLogs(t, mgr.token, query({ module: 'legacy_mod', target_keyword: 'alias-' }));
    expect(Object.fromEntries(all.items.map((record) => [record.target_name, record.action]))).toEqual({
      'Alias-新增': 'CREATE', 'Alias-创建': 'CREATE', 'Alias-添加': 'CREATE', 'Alias-INSERT': 'CREATE',
      'Alias-修改': 'UPDATE', 'Alias-编辑': 'UPDATE', 'Alias-更新': 'UPDATE', 'Alias-删除': 'DELETE', 'Alias-移除': 'DELETE',
    });
    const creates = await auditLogs(t, mgr.token, query({ module: 'legacy_mod', action: 'create', target_keyword: 'alias-' }));
    expect(creates.total).toBe(4);
    const several = await auditLogs(t, mgr.token, query({ module: 'legacy_mod', action: '修改,DELETE', target_keyword: 'alias-' }));
    expect(several.items.map((record) => record.action).sort()).toEqual(['DELETE', 'DELETE', 'UPDATE', 'UPDATE', 'UPDATE']);

    // any case and stray spaces: the filter finds what the answers show
    for (const stored of ['Delete', ' 删除 ', 'Insert']) {
      await storeAudit(t, { module: 'legacy_case', action: stored, target_name: `Case-${stored.trim()}`, company_name: 'ALPHA' });
    }
    const deletes = await auditLogs(t, mgr.token, query({ module: 'legacy_case', action: 'DELETE' }));
    expect(deletes.items.map((record) => record.action)).toEqual(['DELETE', 'DELETE']);
    expect((await auditLogs(t, mgr.token, query({ module: 'legacy_case', action: 'CREATE' }))).total).toBe(1);
  });

  it('refuses an unknown action naming the field', async () => {
    const response = await get(`/logs?action=${encodeURIComponent('CREATE,FROB')}`, mgr.token);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'action' });
    expect(response.json().msg).toContain('FROB');
  });

  it('matches target_keyword case-insensitively on the target id or the stored name, literally', async () => {
    expect((await only({ target_keyword: 'old-in-1' })).module).toBe('入库管理');
    expect((await only({ target_keyword: 'ALIAS-移' })).target_name).toBe('Alias-移除');
    expect((await auditLogs(t, mgr.token, query({ target_keyword: 'Alias_%' }))).total).toBe(0);
  });

  it('takes the general keyword of contract §8: the object, or the person who made the change', async () => {
    const byObject = await auditLogs(t, mgr.token, query({ keyword: row.sku.toLowerCase() }));
    expect(byObject.total).toBeGreaterThan(0);
    expect(byObject.items.every((record) => record.target_id === String(row.id) || record.target_name === row.sku)).toBe(true);
    const byName = await auditLogs(t, mgr.token, query({ keyword: '仓管甲', module: '库存管理' }));
    expect(byName.total).toBeGreaterThan(0);
    expect(byName.items.every((record) => record.username === mgr.username)).toBe(true);
    const byUsername = await auditLogs(t, mgr.token, query({ keyword: mgr.username.toUpperCase(), module: '库存管理' }));
    expect(byUsername.total).toBe(byName.total);
    expect((await auditLogs(t, mgr.token, query({ keyword: 'Alias_%' }))).total).toBe(0);
    // the other company's records stay out of reach
    expect((await auditLogs(t, mgr.token, query({ keyword: '仓管乙' }))).total).toBe(0);
    const file = await readWorkbook(await get(`/logs/export?${new URLSearchParams({ keyword: '仓管甲', module: '库存管理' })}`, mgr.token));
    expect(summaryOfSheet(file.sheets['汇总']!).get('关键字')).toBe('仓管甲');
    expect(file.sheets['审计日志']!).toHaveLength(byName.total + 1);
  });

  it('takes a closed range of Beijing days', async () => {
    const day2 = await auditLogs(t, mgr.token, query({ module: 'legacy_mod', start_date: '2024-03-02', end_date: '2024-03-02' }));
    expect(day2.items.map((record) => record.target_name)).toEqual(['day-2-last', 'day-2-first']);
    expect(day2.items[0]!.time).toBe('2024-03-02T23:59:59.999+08:00');
    const from3 = await auditLogs(t, mgr.token, query({ module: 'legacy_mod', start_date: '2024-03-03', end_date: '2024-03-03' }));
    expect(from3.items.map((record) => record.target_name)).toEqual(['day-3-first']);
    const bad = await get('/logs?start_date=2024-02-30', mgr.token);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'start_date' });
  });

  it('expands the 入库 group at query time and keeps historic English modules filterable with a Chinese label', async () => {
    const group = await auditLogs(t, mgr.token, query({ module: '入库' }));
    const modules = new Set(group.items.map((record) => record.module));
    expect([...modules].sort()).toEqual(['入库管理', '库存管理', '成品入库', '采购入库'].sort());
    const english = await only({ module: 'purchase_request' });
    expect(english).toMatchObject({ target_id: 'EN-1', module_label: '采购申请' });
  });

  it('pages in the database, newest first', async () => {
    const first = await auditLogs(t, mgr.token, query({ module: 'legacy_mod', target_keyword: 'alias-' }));
    const response = await get(`/logs?module=legacy_mod&target_keyword=alias-&limit=2&page=2`, mgr.token);
    expect(response.json()).toMatchObject({ total: 9, page: 2, limit: 2 });
    expect(response.json().items.map((record: AuditLogJson) => record.id)).toEqual(first.items.slice(2, 4).map((record) => record.id));
    expect(first.items.map((record) => record.id)).toEqual([...first.items.map((record) => record.id)].sort((a, b) => b - a));
  });

  it('isolates companies; a cross-domain caller sees all or the one it names', async () => {
    const beta = await auditLogs(t, betaMgr.token);
    expect(beta.items.length).toBeGreaterThan(0);
    expect(beta.items.every((record) => record.company_name === 'BETA')).toBe(true);
    expect((await auditLogs(t, betaMgr.token, query({ company: 'ALPHA' }))).items.every((record) => record.company_name === 'BETA')).toBe(true);
    expect((await auditLogs(t, t.adminToken, query({ target_keyword: 'EN-' }))).total).toBe(2);
    expect((await auditLogs(t, t.adminToken, query({ target_keyword: 'EN-', company: 'BETA' }))).items.map((r) => r.target_id)).toEqual(['EN-2']);
  });

  it('needs system_audit for the list, the detail, the export and the daily report', async () => {
    for (const path of ['/logs', `/logs/${secretId}`, '/logs/export', '/daily-report']) {
      const response = await get(path, sales.token);
      expect(response.statusCode, path).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN');
    }
    expect((await get('/logs')).statusCode).toBe(401);
  });
});

describe('response rules (spec 2.12)', () => {
  const leaks = (text: string) => SECRETS.filter((secret) => text.includes(secret));

  it('never answers a credential stored deep in a payload, drops object representations and keeps <急件>', async () => {
    const list = await get(`/logs?target_keyword=SECRET-REC`, mgr.token);
    const detail = await get(`/logs/${secretId}`, mgr.token);
    for (const response of [list, detail]) {
      expect(response.statusCode).toBe(200);
      expect(leaks(response.body)).toEqual([]);
      expect(response.body).not.toContain('<User 5>');
      expect(response.body).toContain('<急件>');
    }
    expect(detail.json()).toMatchObject({
      action: 'CREATE',
      summary: '明细 2 项; 备注: <急件> (来源:/purchase)',
      details: {
        payload: {
          items: [{ name: '螺丝', quantity: 3 }, { name: '垫片', nested: { list: [{ kept: 'ok' }] } }],
          remark: '<急件>',
        },
      },
    });
    expect(detail.json().details.payload).not.toHaveProperty('owner');
    const [stored] = await queryRows<{ details: string }>(t, sql`select details::text as details from audit_logs where id = ${secretId}`);
    expect(leaks(stored!.details)).toEqual(SECRETS);
  });

  it('drops credential fields, object representations and null↔empty changes from changes and summaries', async () => {
    const id = await storeAudit(t, {
      module: '物料管理', action: 'UPDATE', table_name: 'materials', target_id: String(material.id), target_name: 'CHANGES-REC', company_name: 'ALPHA',
      details: {
        changes: [
          { field: 'password_hash', old: 'hunter2-pw', new: 'x' },
          { field: 'items_json', old: [{ token: 'tok-zzz', quantity: 1 }], new: [{ token: 'cs-yyy', quantity: 1 }] },
          { field: 'remark', old: null, new: '' },
          { field: 'spec_model', old: '', new: null },
          { field: 'owner', old: '<User 1>', new: '<User 2>' },
          { field: 'unit', old: '个', new: '箱' },
        ],
        snapshot: { name: '电阻A', secret_note: 'pk-xxx' },
      },
    });
    const detail = await get(`/logs/${id}`, mgr.token);
    expect(leaks(detail.body)).toEqual([]);
    expect(detail.json().details.changes).toEqual([{ field: 'unit', old: '个', new: '箱' }]);
    expect(detail.json().summary).toBe('单位: 个→箱');
  });

  it('shows enum labels by module in summaries: status 3 is 已出库 for outbound, 已执行 for scrap', async () => {
    const change = (module: string, name: string) =>
      storeAudit(t, { module, action: 'UPDATE', target_name: name, company_name: 'ALPHA', details: { changes: [{ field: 'status', old: 1, new: 3 }] } });
    await change('出库管理', 'ENUM-OUT');
    await change('报废管理', 'ENUM-SCRAP');
    expect((await only({ target_keyword: 'ENUM-OUT' })).summary).toBe('状态: 已审批→已出库');
    expect((await only({ target_keyword: 'ENUM-SCRAP' })).summary).toBe('状态: 已审批→已执行');
  });

  it('answers the decimal-text quantities of a request snapshot as JSON numbers (contract §2)', async () => {
    const id = await storeAudit(t, {
      module: '出库管理', action: 'CREATE', target_name: 'QTY-REC', company_name: 'ALPHA',
      details: { created: { items_json: [{ base_id: material.id, quantity: '0.5', stock_id: 3, remark: '12' }], remark: '007' } },
    });
    const detail = (await get(`/logs/${id}`, mgr.token)).json();
    expect(detail.details.created.items_json).toEqual([{ base_id: material.id, quantity: 0.5, stock_id: 3, remark: '12' }]);
    expect(detail.details.created.remark).toBe('007');
  });

  it('shows an instant among the changes in Beijing time, like the record time (spec 2.12)', async () => {
    await storeAudit(t, {
      module: '出库管理', action: 'UPDATE', target_name: 'TIME-REC', company_name: 'ALPHA',
      details: { changes: [{ field: 'approved_at', old: null, new: '2026-11-25T03:41:36.463+00:00' }] },
    });
    expect((await only({ target_keyword: 'TIME-REC' })).summary).toBe('审批时间: 空→2026-11-25 11:41:36');
  });

  it('cuts a long summary at 120 characters and adds the source after the cut', async () => {
    await storeAudit(t, {
      module: '物料管理', action: 'UPDATE', target_name: 'LONG-REC', company_name: 'ALPHA', request_url: '/api/v1/inbound/base/5?x=1',
      details: { changes: [{ field: 'remark', old: '旧'.repeat(80), new: '新'.repeat(80) }] },
    });
    const { summary } = await only({ target_keyword: 'LONG-REC' });
    expect(summary.endsWith(' (来源:/inbound/base/5)')).toBe(true);
    const core = summary.slice(0, -' (来源:/inbound/base/5)'.length);
    expect([...core]).toHaveLength(120);
    expect(core.startsWith('备注: 旧旧')).toBe(true);
    expect(core.endsWith('…')).toBe(true);
  });

  it('fills target_display only from the snapshot base_id or a stock record whose target_id finds its row', async () => {
    await storeAudit(t, { module: '库存管理', action: 'CREATE', table_name: 'stock_rows', target_id: String(row.id), target_name: 'DISPLAY-STOCK', company_name: 'ALPHA', details: { payload: { note: 'x' } } });
    await storeAudit(t, { module: '出库管理', action: 'CREATE', table_name: 'outbound_requests', target_id: String(row.id), target_name: 'DISPLAY-OTHER', company_name: 'ALPHA', details: { created: { remark: 'x' } } });
    await storeAudit(t, { module: '库存管理', action: 'DELETE', table_name: 'stock_rows', target_id: '987654', target_name: 'DISPLAY-GONE', company_name: 'ALPHA', details: { deleted_snapshot: {} } });
    expect((await only({ target_keyword: 'DISPLAY-STOCK' })).target_display).toBe(`${row.sku} - 电阻A (10K)`);
    expect((await only({ target_keyword: 'DISPLAY-OTHER' })).target_display).toBeNull();
    expect((await only({ target_keyword: 'DISPLAY-GONE' })).target_display).toBeNull();
  });
});

describe('BOM summaries (decided by the module, never by the id)', () => {
  let child: MaterialJson;
  beforeAll(async () => {
    child = await createMaterial(t, mgr.token, { name: '子件甲' });
  });
  const bom = (action: string, name: string, details: unknown, extra: Record<string, string> = {}) =>
    storeAudit(t, { module: 'BOM管理', action, table_name: 'bom_lines', target_id: String(row.id), target_name: name, company_name: 'ALPHA', details, ...extra });

  it('words a child line: 添加子件, 移除子件, 子件 <name>:<changes>', async () => {
    await bom('CREATE', 'BOM-ADD', { created: { parent_id: material.id, child_id: child.id, quantity: '2.0' } });
    await bom('DELETE', 'BOM-DEL', { deleted_snapshot: { parent_id: material.id, child_id: child.id } });
    await bom('UPDATE', 'BOM-UPD', { changes: [{ field: 'quantity', old: 2, new: 3.5 }], snapshot: { child_id: child.id, quantity: 3.5 } });
    expect((await only({ target_keyword: 'BOM-ADD' })).summary).toBe('添加子件 子件甲(用量 2)');
    expect((await only({ target_keyword: 'BOM-DEL' })).summary).toBe('移除子件 子件甲');
    expect((await only({ target_keyword: 'BOM-UPD' })).summary).toBe('子件 子件甲:用量: 2→3.5');
    // the target_id is also a stock row's id: it names nothing outside the BOM table
    expect((await only({ target_keyword: 'BOM-ADD' })).target_display).toBeNull();
  });

  it('finds the child of an update without one in its snapshot in the BOM table itself', async () => {
    const parent = await createMaterial(t, mgr.token, { name: 'BOM父件' });
    const [line] = await t.service.deps.database.transaction({ actor: 'test-fixture' }, async (tx) => {
      const version = await tx.execute(sql`insert into bom_versions (parent_id, company_name, version, status)
        values (${parent.id}, 'ALPHA', 1, 'draft') returning id`);
      const versionId = (version as unknown as { rows: Array<{ id: number }> }).rows[0]!.id;
      const inserted = await tx.execute(sql`insert into bom_lines (bom_version_id, parent_id, child_id, quantity, line_no, company_name)
        values (${versionId}, ${parent.id}, ${child.id}, 4, 1, 'ALPHA') returning id`);
      return (inserted as unknown as { rows: Array<{ id: number }> }).rows;
    });
    await bom('修改', 'BOM-LOOKUP', { changes: [{ field: 'remark', old: null, new: '加急' }] }, { target_id: String(line!.id) });
    expect((await only({ target_keyword: 'BOM-LOOKUP' })).summary).toBe('子件 子件甲:备注: 空→加急');
    // another module's record with a child_id is summarised by the ordinary rules
    await storeAudit(t, { module: '库存管理', action: 'CREATE', table_name: 'stock_rows', target_name: 'NOT-BOM', company_name: 'ALPHA', details: { created: { child_id: child.id, in_quantity: 1 } } });
    expect((await only({ target_keyword: 'NOT-BOM' })).summary).toBe('数量: 1');
  });
});

describe('GET /audit/logs/<id>', () => {
  it('is 404 for a missing record and for a record of another company, 400 for a bad id', async () => {
    const missing = await get('/logs/987654321', mgr.token);
    const foreign = await get(`/logs/${secretId}`, betaMgr.token);
    expect(missing.statusCode).toBe(404);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toEqual(missing.json());
    expect((await get('/logs/abc', mgr.token)).statusCode).toBe(400);
    expect((await get(`/logs/${secretId}`, t.adminToken)).statusCode).toBe(200);
  });
});

describe('GET /audit/modules and /audit/labels', () => {
  it('lists the modules of the caller company once each, the 入库 group as one option', async () => {
    const response = await get('/modules', mgr.token);
    expect(response.statusCode).toBe(200);
    const options = response.json() as Array<{ value: string; label: string }>;
    expect(options[0]).toEqual({ value: '入库', label: '入库' });
    expect(options.map((option) => option.value)).toEqual(expect.arrayContaining(['物料管理', 'purchase_request', 'legacy_mod']));
    expect(options.map((option) => option.value)).not.toEqual(expect.arrayContaining(['库存管理']));
    expect(options.find((option) => option.value === 'purchase_request')?.label).toBe('采购申请');
    expect(options.map((option) => option.value)).not.toContain('image_embeddings');
    const beta = (await get('/modules', betaMgr.token)).json() as Array<{ value: string }>;
    expect(beta.map((option) => option.value)).toEqual(expect.arrayContaining(['物料管理', 'image_embeddings']));
    expect(beta.map((option) => option.value)).not.toContain('legacy_mod');
  });

  it('answers every label part of spec 2.13 to any logged-in user', async () => {
    const response = await get('/labels', sales.token);
    expect(response.statusCode).toBe(200);
    const labels = response.json();
    expect(labels.enumLabels.byModule['出库管理'].status['3']).toBe('已出库');
    expect(labels.enumLabels.byModule['报废管理'].status['3']).toBe('已执行');
    expect(labels.enumLabels.byModule['采购入库'].status['3']).toBe('已完成');
    expect(labels.enumLabels.byModule['借用管理'].status['3']).toBe('已借出');
    expect(labels.enumLabels.byField.status['1']).toBe('已审批');
    // the stock kinds read as everywhere else (/common/labels, the stock schemas)
    const common = (await t.request('GET', '/api/v1/common/labels', { token: sales.token })).json();
    for (const { value, label } of common.source_table as Array<{ value: string; label: string }>) {
      expect(labels.enumLabels.byField.source_table[value], value).toBe(label);
    }
    expect(labels.idReferences['系统管理'].parent_id).toBe('menu');
    expect(labels.idReferences['BOM管理'].parent_id).toBe('material');
    expect(labels.snapshotViews.map((view: { key: string }) => view.key)).toEqual(['created', 'deleted_snapshot', 'payload']);
    expect(labels.hiddenFields).toEqual(['id', 'created_at', 'updated_at', 'target_id', 'module_name']);
    expect(labels.hiddenFieldSuffixes).toEqual(['embedding']);
    expect(labels.moduleDisplay).toMatchObject({ 入库管理: '入库管理', 库存管理: '库存管理', image_embeddings: '物料图片特征', purchase_request: '采购申请', sys_element: '系统菜单' });
    expect(labels.fieldLabels.warehouse_location).toBe('库位');
    expect((await get('/labels')).statusCode).toBe(401);
  });
});

describe('GET /audit/logs/export', () => {
  it('writes 汇总 with the effective filters, 审计日志 and 变更明细, without a credential anywhere in the file', async () => {
    const file = await readWorkbook(await get(`/logs/export?${new URLSearchParams({ module: '入库', start_date: '2020-01-01' })}`, mgr.token));
    expect(file.fileName).toBe('审计日志.xlsx');
    expect(Object.keys(file.sheets)).toEqual(['汇总', '审计日志', '变更明细']);
    const summary = summaryOfSheet(file.sheets['汇总']!);
    expect(summary.get('模块')).toBe('入库（入库管理、采购入库、成品入库、库存管理）');
    expect(summary.get('开始日期')).toBe('2020-01-01');
    expect(summary.get('公司')).toBe('ALPHA');
    const logRows = file.sheets['审计日志']!;
    expect(summary.get('匹配记录数')).toBe(logRows.length - 1);
    expect(summary.get('截断')).toBe('未截断');
    expect(logRows[0]).toEqual(['日志ID', '时间', '模块', '操作', '对象ID', '对象名称', '对象', '摘要', '操作人', '姓名', '公司', '来源']);
    const stockIn = logRows.find((cells) => cells[5] === row.sku && cells[3] === '新增')!;
    expect(stockIn.slice(2)).toEqual(['库存管理', '新增', String(row.id), row.sku, `${row.sku} - 电阻A (10K)`, '数量: 2.5 个; 库位: A/01 (来源:/inbound/stock)', mgr.username, '仓管甲', 'ALPHA', '/inbound/stock']);
    const changes = file.sheets['变更明细']!.filter((cells) => cells[4] === row.sku);
    expect(changes.map((cells) => cells.slice(6, 10))).toEqual([
      ['available_quantity', '可用数量', '2.5', '1'],
      ['stock_quantity', '库存数量', '2.5', '1'],
    ]);
    expect(logRows.some((cells) => cells[5] === 'SECRET-REC')).toBe(true);
    expect(SECRETS.filter((secret) => file.xml.includes(secret))).toEqual([]);
    expect(file.xml).not.toContain('BETA专用物料');
  });

  it('uses the same filter code as the list (and its validation)', async () => {
    const file = await readWorkbook(await get(`/logs/export?${new URLSearchParams({ module: 'legacy_mod', action: '新增,删除', target_keyword: 'alias-' })}`, mgr.token));
    const summary = summaryOfSheet(file.sheets['汇总']!);
    expect(summary.get('操作')).toBe('新增、删除');
    expect(summary.get('匹配记录数')).toBe(6);
    expect(summary.get('新增（CREATE）')).toBe(4);
    expect(summary.get('删除（DELETE）')).toBe(2);
    expect(file.sheets['审计日志']!).toHaveLength(7);
    expect(file.sheets['变更明细']!).toHaveLength(1);
    expect((await get('/logs/export?action=nope', mgr.token)).statusCode).toBe(400);
  });
});

describe('GET /audit/daily-report', () => {
  const today = () => new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);

  it('counts the day per module and per person and lists the records, isolated and without credentials', async () => {
    const file = await readWorkbook(await get(`/daily-report?date=${today()}`, mgr.token));
    expect(file.fileName).toBe(`审计日报_${today()}.xlsx`);
    expect(Object.keys(file.sheets)).toEqual(['汇总', '按模块', '按人员', '明细']);
    const perModule = new Map(file.sheets['按模块']!.slice(1).map((cells) => [cells[1], cells.slice(2)]));
    const listed = (await auditLogs(t, mgr.token, query({ module: '库存管理', start_date: today(), end_date: today() }))).items;
    const counted = (action: string) => listed.filter((record) => record.action === action).length;
    expect(perModule.get('库存管理')).toEqual([counted('CREATE'), counted('UPDATE'), counted('DELETE'), 0, listed.length]);
    expect(counted('UPDATE')).toBeGreaterThan(0);
    const people = new Map(file.sheets['按人员']!.slice(1).map((cells) => [cells[0], cells]));
    expect(people.get(mgr.username)?.[1]).toBe('仓管甲');
    const details = file.sheets['明细']!;
    expect(summaryOfSheet(file.sheets['汇总']!).get('记录数')).toBe(details.length - 1);
    expect(details.some((cells) => cells[5] === 'SECRET-REC')).toBe(true);
    expect(SECRETS.filter((secret) => file.xml.includes(secret))).toEqual([]);
    expect(file.xml).not.toContain('BETA专用物料');
    expect(file.xml).not.toContain(betaMgr.username);
  });

  it('reports a past day by its Beijing bounds and refuses an impossible date', async () => {
    const file = await readWorkbook(await get('/daily-report?date=2024-03-02', mgr.token));
    expect(file.sheets['明细']!.slice(1).map((cells) => cells[5])).toEqual(['day-2-last', 'day-2-first']);
    const bad = await get('/daily-report?date=2024-02-30', mgr.token);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'date' });
    expect((await get('/daily-report?date=yesterday', mgr.token)).statusCode).toBe(400);
  });
});

describe('audit module names', () => {
  it('every audit trigger writes a module the labels know; stock to 库存管理, BOM to BOM管理', async () => {
    const triggers = await queryRows<{ table_name: string; module: string }>(
      t,
      sql`select c.relname as table_name,
                 convert_from(substring(tg.tgargs from 1 for position('\\x00'::bytea in tg.tgargs) - 1), 'UTF8') as module
            from pg_trigger tg join pg_class c on c.oid = tg.tgrelid
           where tg.tgname like 'audit_%' and not tg.tgisinternal`,
    );
    expect(triggers.length).toBeGreaterThan(20);
    expect(triggers.filter((trigger) => !TRIGGER_MODULES.includes(trigger.module))).toEqual([]);
    const moduleOf = new Map(triggers.map((trigger) => [trigger.table_name, trigger.module]));
    expect(moduleOf.get('stock_rows')).toBe('库存管理');
    expect(moduleOf.get('users')).toBe('系统管理');
    for (const [table, module] of moduleOf) if (table.startsWith('bom')) expect(module, table).toBe('BOM管理');
  });
});

describe('field permissions in the audit views', () => {
  it('leave out what the reader may not read: prices and links in snapshots, changes and summaries (contract §3)', async () => {
    const priced = await createMaterial(t, mgr.token, { name: '带价物料', purchaseLink: 'https://example.com/p', referencePrice: 3 });
    const repriced = await t.request('PUT', `/api/v1/inbound/base/${priced.id}`, {
      token: mgr.token,
      body: { name: '带价物料', category: priced.category, referencePrice: 4.5, remark: '改价' },
    });
    expect(repriced.statusCode, repriced.body).toBe(200);
    const auditor = await t.user('INBOUND', 'ALPHA'); // material_list:operation, no price or link code
    const grants: string[] = (await t.request('GET', '/api/v1/permissions/role/INBOUND', { token: t.adminToken })).json().permissions;
    const grant = (permissions: string[]) => t.request('PUT', '/api/v1/permissions/role/INBOUND', { token: t.adminToken, body: { permissions } });
    expect((await grant([...grants, 'system_audit'])).statusCode).toBe(200);
    try {
      const created = await only({ target_keyword: '带价物料', action: 'CREATE' }, auditor.token);
      expect(created.details.created).toMatchObject({ name: '带价物料' });
      expect(created.details.created).not.toHaveProperty('reference_price');
      expect(created.details.created).not.toHaveProperty('purchase_link');
      const updated = await only({ target_keyword: '带价物料', action: 'UPDATE' }, auditor.token);
      expect((updated.details.changes as Array<{ field: string }>).map((change) => change.field)).toEqual(['remark']);
      expect(updated.summary).not.toContain('参考价');
      const detail = (await get(`/logs/${updated.id}`, auditor.token)).json();
      expect(detail.details.changes.map((change: { field: string }) => change.field)).toEqual(['remark']);
      // the export (on PostgreSQL built in the export thread) leaves them out as well
      const file = await readWorkbook(await get(`/logs/export?${new URLSearchParams({ target_keyword: '带价物料' })}`, auditor.token));
      expect(file.xml).not.toContain('https://example.com/p');
      expect(file.xml).not.toContain('参考价');

      // a holder of the codes sees them
      const seen = await only({ target_keyword: '带价物料', action: 'UPDATE' });
      expect((seen.details.changes as Array<{ field: string }>).map((change) => change.field)).toEqual(expect.arrayContaining(['reference_price', 'remark']));
      expect((await only({ target_keyword: '带价物料', action: 'CREATE' })).details.created).toHaveProperty('purchase_link', 'https://example.com/p');
    } finally {
      await grant(grants);
    }
  });
});
