import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditApi, auditLogs, readWorkbook } from './audit-fixtures.js';
import { createMaterial, type MaterialJson } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

/** Audit views of records written through the API only (spec 2.12, 2.13), as a user of the service sees them. */

let t: TestInventory;
let mgr: TestUser;
beforeAll(async () => {
  t = await buildTestInventory();
  mgr = await t.user('WAREHOUSE_MGR', 'ALPHA', { name: '仓管丙' });
});
afterAll(() => t?.close());

const saveDraft = (body: unknown) => t.request('POST', '/api/v1/bom/draft/save', { token: mgr.token, body });

describe('BOM line edits in the audit views (spec 2.12 rule 4)', () => {
  let parent: MaterialJson;
  let resistor: MaterialJson;
  let capacitor: MaterialJson;
  beforeAll(async () => {
    parent = await createMaterial(t, mgr.token, { name: '控制器整机' });
    resistor = await createMaterial(t, mgr.token, { name: '贴片电阻' });
    capacitor = await createMaterial(t, mgr.token, { name: '贴片电容' });
    for (const items of [
      [{ child_id: resistor.id, quantity: 2 }, { child_id: capacitor.id, quantity: 1.5 }],
      [{ child_id: resistor.id, quantity: 3 }],
    ]) {
      const saved = await saveDraft({ parent_id: parent.id, items });
      expect(saved.statusCode, saved.body).toBe(200);
    }
  });

  it('words the quantity of use as 用量 in every BOM summary, with the source after it', async () => {
    const page = await auditLogs(t, mgr.token, `&${new URLSearchParams({ module: 'BOM管理', action: 'CREATE,UPDATE,DELETE' })}`);
    const summaries = page.items.map((item) => item.summary);
    expect(summaries).toEqual(
      expect.arrayContaining([
        `添加子件 ${resistor.name}(用量 2) (来源:/bom/draft/save)`,
        `添加子件 ${capacitor.name}(用量 1.5) (来源:/bom/draft/save)`,
        `移除子件 ${capacitor.name}(用量 1.5) (来源:/bom/draft/save)`,
        `子件 ${resistor.name}:用量: 2→3 (来源:/bom/draft/save)`,
      ]),
    );
  });

  it('labels the field 用量 in the export’s 变更明细 and in /audit/labels as well', async () => {
    const file = await readWorkbook(await t.request('GET', auditApi(`/logs/export?${new URLSearchParams({ module: 'BOM管理', action: 'UPDATE' })}`), { token: mgr.token }));
    const [header, ...rows] = file.sheets['变更明细']!;
    const field = header!.indexOf('字段');
    const label = header!.indexOf('字段名称');
    expect(rows.filter((row) => row[field] === 'quantity').map((row) => row[label])).toEqual(['用量']);
    const labels = (await t.request('GET', auditApi('/labels'), { token: mgr.token })).json();
    expect(labels.fieldLabelsByModule['BOM管理']).toMatchObject({ quantity: '用量', parent_id: '父件' });
    expect(labels.fieldLabels.quantity).toBe('数量');
  });
});
