import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createMaterial, flowCast, queryRows, stockIn, useTestApp, type FlowCast, type MaterialJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';

const BOM = '/api/v1/bom';

/** The parts of an audit record's details these tests read. */
interface AuditDetails {
  created: { child_id: number; quantity: number };
  snapshot: { child_id: number };
  deleted_snapshot: { child_id: number; quantity: number };
  changes: { field: string; old: unknown; new: unknown }[];
}
/** INBOUND's default grants plus bom_manage:operation: a BOM editor without bom_manage:remark. */
const INBOUND_WITH_BOM = [
  'material_list:operation', 'inbound_buy', 'inbound_stock:operation', 'inventory_stocktake:operation',
  'op_borrow_apply', 'op_return:operation', 'scrap_apply', 'bom_manage:operation',
];

let t: TestInventory;
let w: FlowCast;
useTestApp(
  async (app) => {
    const cast = await flowCast(app);
    const granted = await app.request('PUT', '/api/v1/permissions/role/INBOUND', { token: app.adminToken, body: { permissions: INBOUND_WITH_BOM } });
    if (granted.statusCode !== 200) throw new Error(granted.body);
    return cast;
  },
  (built) => ({ t, w } = built),
);

const material = (overrides: Record<string, unknown> = {}) => createMaterial(t, w.mgr.token, overrides);
const saveDraft = (token: string, body: unknown) => t.request('POST', `${BOM}/draft/save`, { token, body });
const publish = (token: string, body: unknown) => t.request('POST', `${BOM}/save`, { token, body });
const bomWrites = async () => {
  const [row] = await queryRows<{ versions: number; lines: number }>(
    t,
    sql`select (select count(*)::int from bom_versions) as versions, (select count(*)::int from bom_lines) as lines`,
  );
  return row!;
};

/** A parent with two children, published as version 1 by the manager. */
async function publishedBom(remark = '整机 BOM') {
  const parent = await material({ name: `整机${Math.random().toString(36).slice(2, 6)}`, category: 'ALPHA/成品/整机' });
  const a = await material();
  const b = await material();
  const res = await publish(w.mgr.token, { parent_id: parent.id, remark, items: [{ child_id: a.id, quantity: 2, remark: '左侧' }, { child_id: b.id, quantity: 0.5 }] });
  expect(res.statusCode, res.body).toBe(200);
  return { parent, a, b, v1: res.json() };
}

describe('BOM drafts and publishing', () => {
  it('carries the BOM-level remark through draft save, draft read and publish', async () => {
    const parent = await material();
    const child = await material();
    const saved = await saveDraft(w.mgr.token, { parent_id: parent.id, remark: '  首版，待评审 ', items: [{ child_id: child.id, quantity: 3, remark: '贴片' }] });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ status: 'draft', version: 1, remark: '首版，待评审', is_current: false, child_count: 1 });

    const read = await t.request('GET', `${BOM}/draft?parent_id=${parent.id}`, { token: w.sales.token });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ remark: '首版，待评审', items: [{ child_id: child.id, child_name: child.name, quantity: 3, remark: '贴片', line_no: 1 }] });

    // publish with nothing but the parent: remark and lines come from the draft
    const published = await publish(w.mgr.token, { parent_id: parent.id });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json()).toMatchObject({ status: 'published', version: 1, is_current: true, remark: '首版，待评审', published_by: w.mgr.id });
    expect(published.json().items).toHaveLength(1);

    const noDraft = await t.request('GET', `${BOM}/draft?parent_id=${parent.id}`, { token: w.mgr.token });
    expect(noDraft.statusCode).toBe(200);
    expect(noDraft.json()).toBeNull();
  });

  it('never changes a published version: editing starts the next version as a draft', async () => {
    const { parent, a, b, v1 } = await publishedBom();
    const c = await material();
    // a new draft starts from the current version (lines and remark) when the body leaves them out
    const seeded = await saveDraft(w.mgr.token, { parent_id: parent.id });
    expect(seeded.json()).toMatchObject({ version: 2, status: 'draft', remark: '整机 BOM' });
    expect(seeded.json().items.map((line: { child_id: number }) => line.child_id)).toEqual([a.id, b.id]);

    const edited = await saveDraft(w.mgr.token, { parent_id: parent.id, items: [{ child_id: a.id, quantity: 4 }, { child_id: c.id, quantity: 1 }] });
    expect(edited.json()).toMatchObject({ bom_version_id: seeded.json().bom_version_id, version: 2 });

    // still version 1 until the draft is published
    const current = await t.request('GET', `${BOM}/${parent.id}`, { token: w.sales.token });
    expect(current.json()).toMatchObject({ bom_version_id: v1.bom_version_id, version: 1, is_current: true });
    expect(current.json().items.map((line: { quantity: number }) => line.quantity)).toEqual([2, 0.5]);

    const v2 = await publish(w.mgr.token, { parent_id: parent.id });
    expect(v2.json()).toMatchObject({ version: 2, is_current: true });
    const first = await t.request('GET', `${BOM}/${parent.id}?version=1`, { token: w.sales.token });
    expect(first.json()).toMatchObject({ version: 1, status: 'published', is_current: false, remark: '整机 BOM' });
    expect(first.json().items.map((line: { child_id: number; quantity: number }) => [line.child_id, line.quantity])).toEqual([[a.id, 2], [b.id, 0.5]]);
    const second = await t.request('GET', `${BOM}/${parent.id}`, { token: w.sales.token });
    expect(second.json().items.map((line: { child_id: number; quantity: number }) => [line.child_id, line.quantity])).toEqual([[a.id, 4], [c.id, 1]]);

    const versions = await t.request('GET', `${BOM}/${parent.id}/versions`, { token: w.sales.token });
    expect(versions.json()).toMatchObject({ total: 2, items: [{ version: 2, is_current: true, child_count: 2 }, { version: 1, is_current: false, child_count: 2 }] });
    const missing = await t.request('GET', `${BOM}/${parent.id}?version=9`, { token: w.sales.token });
    expect(missing.statusCode).toBe(404);
  });

  it('lets a draft be discarded, leaving the published versions alone', async () => {
    const { parent, v1 } = await publishedBom();
    await saveDraft(w.mgr.token, { parent_id: parent.id, remark: '改版中' });
    const discarded = await t.request('DELETE', `${BOM}/draft?parent_id=${parent.id}`, { token: w.mgr.token });
    expect(discarded.json()).toEqual({ deleted: true });
    const again = await t.request('DELETE', `${BOM}/draft?parent_id=${parent.id}`, { token: w.mgr.token });
    expect(again.json()).toEqual({ deleted: false });
    const current = await t.request('GET', `${BOM}/${parent.id}`, { token: w.mgr.token });
    expect(current.json()).toMatchObject({ bom_version_id: v1.bom_version_id, remark: '整机 BOM' });
  });

  it('drops the BOM-level remark of a caller without bom_manage:remark and keeps the stored one', async () => {
    const { parent, a } = await publishedBom('原备注');
    const saved = await saveDraft(w.inbound.token, { parent_id: parent.id, remark: '被改掉', items: [{ child_id: a.id, quantity: 7, remark: '行备注可写' }] });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({ remark: '原备注', items: [{ quantity: 7, remark: '行备注可写' }] });
    const cleared = await publish(w.inbound.token, { parent_id: parent.id, remark: null });
    expect(cleared.json()).toMatchObject({ version: 2, remark: '原备注' });
    // the holder of bom_manage:remark may change and clear it
    const byMgr = await saveDraft(w.mgr.token, { parent_id: parent.id, remark: null });
    expect(byMgr.json()).toMatchObject({ version: 3, remark: null });
  });

  it('needs bom_manage:operation to write and only a login to read', async () => {
    const { parent, a } = await publishedBom();
    const before = await bomWrites();
    for (const [path, body] of [[`${BOM}/save`, { parent_id: parent.id, items: [{ child_id: a.id, quantity: 1 }] }], [`${BOM}/draft/save`, { parent_id: parent.id }]] as const) {
      const refused = await t.request('POST', path, { token: w.sales.token, body });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('FORBIDDEN');
    }
    expect((await t.request('DELETE', `${BOM}/draft?parent_id=${parent.id}`, { token: w.sales.token })).statusCode).toBe(403);
    expect(await bomWrites()).toEqual(before);
    expect((await t.request('GET', `${BOM}/list`, { token: w.sales.token })).statusCode).toBe(200);
    expect((await t.request('GET', `${BOM}/list`)).statusCode).toBe(401);
  });

  it('refuses bad lines with a 4xx naming the line and writes nothing', async () => {
    const parent = await material();
    const child = await material();
    const before = await bomWrites();
    const cases: [unknown, number, string][] = [
      [{ parent_id: parent.id, items: [{ child_id: parent.id, quantity: 1 }] }, 400, 'items.0.child_id'],
      [{ parent_id: parent.id, items: [{ child_id: child.id, quantity: 1 }, { child_id: child.id, quantity: 2 }] }, 400, 'items.1.child_id'],
      [{ parent_id: parent.id, items: [{ child_id: child.id, quantity: 0 }] }, 400, 'items.0.quantity'],
      [{ parent_id: parent.id, items: [{ child_id: child.id, quantity: '2' }] }, 400, 'items.0.quantity'],
      [{ parent_id: parent.id, items: [{ child_id: 99999999, quantity: 1 }] }, 404, 'items.0.child_id'],
      [{ parent_id: 99999999, items: [{ child_id: child.id, quantity: 1 }] }, 404, 'parent_id'],
      [{ items: [{ child_id: child.id, quantity: 1 }] }, 400, 'parent_id'],
    ];
    for (const [body, status, field] of cases) {
      for (const send of [saveDraft, publish]) {
        const res = await send(w.mgr.token, body);
        expect(res.statusCode, `${JSON.stringify(body)} ${res.body}`).toBe(status);
        expect(res.json()).toMatchObject({ field });
        expect(typeof res.json().msg).toBe('string');
      }
    }
    const empty = await publish(w.mgr.token, { parent_id: parent.id, items: [] });
    expect(empty.statusCode).toBe(400);
    expect(empty.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'items' });
    expect(await bomWrites()).toEqual(before);
  });

  it('refuses a child whose current BOM already contains the parent', async () => {
    const { parent, a } = await publishedBom();
    const loop = await publish(w.mgr.token, { parent_id: a.id, items: [{ child_id: parent.id, quantity: 1 }] });
    expect(loop.statusCode).toBe(400);
    expect(loop.json().msg).toContain('循环');
    // two levels down as well
    const top = await material();
    expect((await publish(w.mgr.token, { parent_id: top.id, items: [{ child_id: parent.id, quantity: 1 }] })).statusCode).toBe(200);
    const deep = await publish(w.mgr.token, { parent_id: a.id, items: [{ child_id: top.id, quantity: 1 }] });
    expect(deep.statusCode).toBe(400);
  });
});

describe('BOM company isolation', () => {
  it('hides another company’s BOM and refuses its materials', async () => {
    const { parent, a } = await publishedBom();
    expect((await t.request('GET', `${BOM}/${parent.id}`, { token: w.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', `${BOM}/${parent.id}/versions`, { token: w.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', `${BOM}/draft?parent_id=${parent.id}`, { token: w.betaMgr.token })).statusCode).toBe(404);
    expect((await publish(w.betaMgr.token, { parent_id: parent.id, items: [{ child_id: a.id, quantity: 1 }] })).statusCode).toBe(404);

    const betaParent = await createMaterial(t, w.betaMgr.token, { category: 'BETA/成品' });
    const foreignChild = await publish(w.betaMgr.token, { parent_id: betaParent.id, items: [{ child_id: a.id, quantity: 1 }] });
    expect(foreignChild.statusCode).toBe(404);
    expect(foreignChild.json()).toMatchObject({ code: 'NOT_FOUND', field: 'items.0.child_id' });
    // a cross-domain caller sees both companies, and still may not mix them in one BOM
    const mixed = await publish(w.admin, { parent_id: betaParent.id, items: [{ child_id: a.id, quantity: 1 }] });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json().msg).toContain('公司');

    const betaList = await t.request('GET', `${BOM}/list?limit=200`, { token: w.betaMgr.token });
    expect(betaList.json().items.map((item: { company_name: string }) => item.company_name)).not.toContain('ALPHA');
  });
});

describe('BOM list and summary', () => {
  it('pages parents with their children aggregated, filtered by category, and counts per category', async () => {
    const category = `ALPHA/汇总${Math.random().toString(36).slice(2, 6)}`;
    const parents: MaterialJson[] = [];
    for (let i = 0; i < 3; i++) {
      const parent = await material({ category: `${category}/整机` });
      const children = [await material(), await material()];
      await publish(w.mgr.token, { parent_id: parent.id, items: children.map((child, index) => ({ child_id: child.id, quantity: index + 1 })) });
      parents.push(parent);
    }
    const draftOnly = await material({ category });
    await saveDraft(w.mgr.token, { parent_id: draftOnly.id, items: [{ child_id: (await material()).id, quantity: 5 }] });
    await saveDraft(w.mgr.token, { parent_id: parents[0]!.id, remark: '改版' });

    const page = await t.request('GET', `${BOM}/list?category=${encodeURIComponent(category)}&limit=2`, { token: w.sales.token });
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json()).toMatchObject({ total: 4, page: 1, limit: 2 });
    const [first] = page.json().items;
    expect(first).toMatchObject({ parent_id: parents[0]!.id, parent_name: parents[0]!.name, status: 'published', version: 1, draft_version: 2, child_count: 2 });
    expect(first.children.map((child: { quantity: number }) => child.quantity)).toEqual([1, 2]);
    const last = await t.request('GET', `${BOM}/list?category=${encodeURIComponent(category)}&limit=2&page=2`, { token: w.sales.token });
    expect(last.json().items[1]).toMatchObject({ parent_id: draftOnly.id, status: 'draft', draft_version: 1, children: [{ quantity: 5 }] });

    const summary = await t.request('GET', `${BOM}/summary`, { token: w.sales.token });
    expect(summary.statusCode).toBe(200);
    const counts = Object.fromEntries(summary.json().categories.map((c: { category: string; count: number }) => [c.category, c.count]));
    expect(counts[`${category}/整机`]).toBe(3);
    expect(counts[category]).toBe(1);
    expect(summary.json().total).toBe(summary.json().categories.reduce((sum: number, c: { count: number }) => sum + c.count, 0));
  });
});

describe('materials used by a BOM', () => {
  it('cannot be deleted, as parent or as child', async () => {
    const { parent, a } = await publishedBom();
    for (const id of [parent.id, a.id]) {
      const res = await t.request('DELETE', `/api/v1/inbound/base/${id}`, { token: w.mgr.token });
      expect(res.statusCode).toBe(400);
      expect(res.json().code).toBe('IN_USE');
      expect(res.json().msg).toContain('BOM');
    }
  });
});

describe('BOM audit records', () => {
  it('records line changes under module BOM管理 with child_id and quantity in the snapshot', async () => {
    const { parent, a, b } = await publishedBom();
    const c = await material();
    await publish(w.mgr.token, { parent_id: parent.id, items: [{ child_id: a.id, quantity: 3 }, { child_id: c.id, quantity: 1 }] });
    const rows = await queryRows<{ module: string; action: string; table_name: string; company_name: string; details: AuditDetails }>(
      t,
      sql`select module, action, table_name, company_name, details from audit_logs where table_name in ('bom_versions', 'bom_lines') and (details->'created'->>'parent_id' = ${String(parent.id)} or details->'snapshot'->>'parent_id' = ${String(parent.id)} or details->'deleted_snapshot'->>'parent_id' = ${String(parent.id)}) order by id`,
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(new Set(rows.map((row) => row.module))).toEqual(new Set(['BOM管理']));
    expect(new Set(rows.map((row) => row.company_name))).toEqual(new Set(['ALPHA']));
    const lineCreates = rows.filter((row) => row.table_name === 'bom_lines' && row.action === 'CREATE');
    expect(lineCreates.map((row) => [row.details.created.child_id, Number(row.details.created.quantity)])).toEqual(
      expect.arrayContaining([[a.id, 2], [b.id, 0.5], [a.id, 3], [c.id, 1]]),
    );
    const publishes = rows.filter((row) => row.table_name === 'bom_versions' && row.action === 'UPDATE');
    expect(publishes.map((row) => row.details.changes.find((change) => change.field === 'status'))).toEqual([
      { field: 'status', old: 'draft', new: 'published' },
      { field: 'status', old: 'draft', new: 'published' },
    ]);
    // editing a draft records a line's change as an UPDATE of that line, a removal as a DELETE
    await saveDraft(w.mgr.token, { parent_id: parent.id, items: [{ child_id: a.id, quantity: 5 }] });
    const edits = await queryRows<{ action: string; details: AuditDetails }>(
      t,
      sql`select action, details from audit_logs where table_name = 'bom_lines' and module = 'BOM管理' order by id desc limit 2`,
    );
    expect(edits.map((row) => row.action).sort()).toEqual(['CREATE', 'CREATE']);
    await saveDraft(w.mgr.token, { parent_id: parent.id, items: [{ child_id: a.id, quantity: 6 }] });
    const [update] = await queryRows<{ action: string; details: AuditDetails }>(
      t,
      sql`select action, details from audit_logs where table_name = 'bom_lines' order by id desc limit 1`,
    );
    expect(update!.action).toBe('UPDATE');
    expect(update!.details.snapshot).toMatchObject({ child_id: a.id });
    expect(update!.details.changes.map((change) => [change.field, Number(change.old), Number(change.new)])).toEqual([['quantity', 5, 6]]);
    await saveDraft(w.mgr.token, { parent_id: parent.id, items: [{ child_id: c.id, quantity: 1 }] });
    const [removed] = await queryRows<{ action: string; details: AuditDetails }>(
      t,
      sql`select action, details from audit_logs where table_name = 'bom_lines' and action = 'DELETE' order by id desc limit 1`,
    );
    expect(removed!.details.deleted_snapshot).toMatchObject({ child_id: a.id });
    expect(Number(removed!.details.deleted_snapshot.quantity)).toBe(6);
  });
});

describe('finished products built from a BOM version', () => {
  it('links a product row to a published version of its own material and lists the serials of a version', async () => {
    const { parent, a, v1 } = await publishedBom();
    const product = await stockIn(t, w.mgr.token, { source_table: 'stock_product', base_id: parent.id, in_quantity: 1, serial_number: 'SN-BOM-001', bom_version_id: v1.bom_version_id });
    expect(product.bom_version_id).toBe(v1.bom_version_id);
    const second = await stockIn(t, w.mgr.token, { source_table: 'stock_product', base_id: parent.id, in_quantity: 1, serial_number: 'SN-BOM-002' });
    expect(second.bom_version_id).toBeNull();
    const linked = await t.request('PUT', `/api/v1/inbound/stock/${second.id}`, { token: w.mgr.token, body: { bom_version_id: v1.bom_version_id } });
    expect(linked.statusCode, linked.body).toBe(200);
    expect(linked.json().bom_version_id).toBe(v1.bom_version_id);

    const serials = await t.request('GET', `${BOM}/versions/${v1.bom_version_id}/serials`, { token: w.sales.token });
    expect(serials.statusCode).toBe(200);
    expect(serials.json()).toMatchObject({ total: 2 });
    expect(serials.json().items.map((row: { serial_number: string }) => row.serial_number)).toEqual(['SN-BOM-002', 'SN-BOM-001']);
    const versions = await t.request('GET', `${BOM}/${parent.id}/versions`, { token: w.sales.token });
    expect(versions.json().items[0]).toMatchObject({ bom_version_id: v1.bom_version_id, serial_count: 2 });
    expect((await t.request('GET', `${BOM}/versions/${v1.bom_version_id}/serials`, { token: w.betaMgr.token })).statusCode).toBe(404);

    // a published version, of this material, of this company, on a finished product only
    const draft = await saveDraft(w.mgr.token, { parent_id: parent.id });
    const other = await publishedBom();
    const betaParent = await createMaterial(t, w.betaMgr.token, { category: 'BETA/成品' });
    const betaChild = await createMaterial(t, w.betaMgr.token, { category: 'BETA/零件' });
    const betaBom = (await publish(w.betaMgr.token, { parent_id: betaParent.id, items: [{ child_id: betaChild.id, quantity: 1 }] })).json();
    const refusals: [Record<string, unknown>, number, string][] = [
      [{ source_table: 'stock_product', base_id: parent.id, bom_version_id: draft.json().bom_version_id }, 400, 'STATUS_NOT_ALLOWED'],
      [{ source_table: 'stock_product', base_id: parent.id, bom_version_id: other.v1.bom_version_id }, 400, 'VALIDATION_FAILED'],
      [{ source_table: 'stock_buy', base_id: parent.id, bom_version_id: v1.bom_version_id }, 400, 'VALIDATION_FAILED'],
      [{ source_table: 'stock_product', base_id: parent.id, bom_version_id: betaBom.bom_version_id }, 404, 'NOT_FOUND'],
      [{ source_table: 'stock_product', base_id: parent.id, bom_version_id: 99999999 }, 404, 'NOT_FOUND'],
      [{ source_table: 'stock_product', base_id: parent.id, bom_version_id: 'x' }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of refusals) {
      const res = await t.request('POST', '/api/v1/inbound/stock', { token: w.mgr.token, body: { in_quantity: 1, ...body } });
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json()).toMatchObject({ code, field: 'bom_version_id' });
      const edit = await t.request('PUT', `/api/v1/inbound/stock/${product.id}`, { token: w.mgr.token, body: { bom_version_id: body.bom_version_id } });
      if (body.source_table === 'stock_product') expect(edit.statusCode).toBe(status);
    }
    const [stored] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from stock_rows where base_id = ${parent.id}`);
    expect(stored!.n).toBe(2);
    const kept = await t.request('GET', `/api/v1/inbound/stock/${product.id}`, { token: w.mgr.token });
    expect(kept.json().bom_version_id).toBe(v1.bom_version_id);
    expect(a.id).not.toBe(parent.id);
  });
});

describe('concurrent BOM writes of one parent', () => {
  it('keep one draft and number published versions without gaps or repeats', async () => {
    const parent = await material();
    const child = await material();
    const drafts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => saveDraft(w.mgr.token, { parent_id: parent.id, items: [{ child_id: child.id, quantity: i + 1 }] })),
    );
    expect(drafts.map((res) => res.statusCode)).toEqual(Array(6).fill(200));
    expect(new Set(drafts.map((res) => res.json().bom_version_id)).size).toBe(1);
    const publishes = await Promise.all(
      Array.from({ length: 4 }, (_, i) => publish(w.mgr.token, { parent_id: parent.id, items: [{ child_id: child.id, quantity: 10 + i }] })),
    );
    expect(publishes.map((res) => res.statusCode)).toEqual(Array(4).fill(200));
    expect(publishes.map((res) => res.json().version).sort()).toEqual([1, 2, 3, 4]);
    const [counts] = await queryRows<{ drafts: number; published: number }>(
      t,
      sql`select count(*) filter (where status = 'draft')::int as drafts, count(*) filter (where status = 'published')::int as published
            from bom_versions where parent_id = ${parent.id}`,
    );
    expect(counts).toEqual({ drafts: 0, published: 4 });
  });
});
