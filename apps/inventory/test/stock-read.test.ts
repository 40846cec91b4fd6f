import ExcelJS from 'exceljs';
import { sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '@wms/platform/testing';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { createMaterial, queryRows, stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';

const API = '/api/v1';

describe('stock rows: detail, list and scan', () => {
  let t: TestInventory;
  let manager: TestUser;
  let sales: TestUser;
  let betaManager: TestUser;
  let resistor: MaterialJson;
  let capacitor: MaterialJson;
  let betaMaterial: MaterialJson;
  let buy: StockRowJson;
  let semi: StockRowJson;
  let product: StockRowJson;
  let frozen: StockRowJson;
  let betaRow: StockRowJson;

  const list = (token: string, query = '', path = '/stock/list') => t.request('GET', `${API}${path}${query ? `?${query}` : ''}`, { token });
  const skusOf = (body: { items: StockRowJson[] }) => body.items.map((row) => row.sku).sort();

  beforeAll(async () => {
    t = await buildTestInventory();
    [manager, sales, betaManager] = await Promise.all([
      t.user('WAREHOUSE_MGR', 'ALPHA'),
      t.user('SALES', 'ALPHA'),
      t.user('WAREHOUSE_MGR', 'BETA'),
    ]);
    resistor = await createMaterial(t, manager.token, { name: '贴片电阻', spec_model: 'R-10K-0603', referencePrice: 0.05 });
    capacitor = await createMaterial(t, manager.token, { name: '电解电容', spec_model: 'C-100UF' });
    betaMaterial = await createMaterial(t, betaManager.token, { name: '贴片电阻', category: 'BETA/电子', spec_model: 'R-10K-0603' });
    buy = await stockIn(t, manager.token, {
      base_id: resistor.id, sku: 'RD-BUY-0001', batch_number: 'LOT-2501', warehouse_location: 'A/01/01', unit_cost: 0.04,
    });
    semi = await stockIn(t, manager.token, {
      source_table: 'stock_semi', base_id: capacitor.id, sku: 'RD-SEMI-0001', batch_number: 'SEMI-7', warehouse_location: 'A/02/01',
    });
    product = await stockIn(t, manager.token, {
      source_table: 'stock_product', base_id: capacitor.id, sku: 'RD-PROD-0001', serial_number: 'SN-XYZ-42', warehouse_location: 'B/01',
    });
    frozen = await stockIn(t, manager.token, { base_id: resistor.id, sku: 'RD-FROZEN-0001', warehouse_location: 'AB/09' });
    const change = await t.request('POST', `${API}/inbound/stock/${frozen.id}/change-status`, { token: manager.token, body: { status: '冻结' } });
    expect(change.statusCode).toBe(200);
    betaRow = await stockIn(t, betaManager.token, { base_id: betaMaterial.id, sku: 'RD-BETA-0001', warehouse_location: 'A/01/01' });
  });
  afterAll(() => t.close());

  describe('GET /inbound/stock/:id', () => {
    it('answers the row on both paths', async () => {
      for (const path of ['/inbound/stock', '/stock']) {
        const response = await t.request('GET', `${API}${path}/${product.id}`, { token: sales.token });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toMatchObject({ id: product.id, sku: 'RD-PROD-0001', batch_number: '', serial_number: 'SN-XYZ-42' });
      }
    });

    it('is 404 for another company, an unknown id or a source_table that does not match', async () => {
      for (const url of [`${API}/inbound/stock/${buy.id}`, `${API}/inbound/stock/987654`, `${API}/stock/${betaRow.id}?source_table=stock_semi`]) {
        const token = url.includes(String(buy.id)) ? betaManager.token : manager.token;
        const response = await t.request('GET', url, { token });
        expect(response.statusCode, url).toBe(404);
        expect(response.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.any(String) });
      }
      const matching = await t.request('GET', `${API}/stock/${semi.id}?source_table=stock_semi`, { token: manager.token });
      expect(matching.statusCode).toBe(200);
    });

    it('is 400 for a malformed id and 401 without a token', async () => {
      expect((await t.request('GET', `${API}/inbound/stock/abc`, { token: manager.token })).statusCode).toBe(400);
      expect((await t.request('GET', `${API}/inbound/stock/${buy.id}`)).statusCode).toBe(401);
    });
  });

  describe('GET /stock/list', () => {
    it('lists only the caller company, newest first, with material fields, on every list path', async () => {
      for (const path of ['/stock/list', '/inbound/stock/list', '/inbound/stock', '/stock']) {
        const response = await list(manager.token, '', path);
        expect(response.statusCode, path).toBe(200);
        const body = response.json();
        expect(body).toMatchObject({ total: 4, page: 1, limit: 20 });
        expect(body.items.map((row: StockRowJson) => row.id)).toEqual([frozen.id, product.id, semi.id, buy.id]);
      }
      const first = (await list(manager.token, `keyword=RD-BUY`)).json().items[0];
      expect(first).toMatchObject({
        material_name: '贴片电阻', spec_model: 'R-10K-0603', unit: '个', category: 'ALPHA/电子/电阻', company_name: 'ALPHA',
      });
    });

    it('filters by keyword over sku, batch, serial, material name, spec and location', async () => {
      const cases: Array<[string, string[]]> = [
        ['rd-semi', ['RD-SEMI-0001']],
        ['LOT-25', ['RD-BUY-0001']],
        ['xyz-42', ['RD-PROD-0001']],
        ['电解', ['RD-PROD-0001', 'RD-SEMI-0001']],
        ['10K', ['RD-BUY-0001', 'RD-FROZEN-0001']],
        ['A/02', ['RD-SEMI-0001']],
        ['%', []],
        // two characters: looked up by their character pair, still case-insensitive substrings
        ['ab', ['RD-FROZEN-0001']],
        ['Rd', ['RD-BUY-0001', 'RD-FROZEN-0001', 'RD-PROD-0001', 'RD-SEMI-0001']],
        ['片电', ['RD-BUY-0001', 'RD-FROZEN-0001']],
        ['Z-', ['RD-PROD-0001']],
        ['1_', []],
        ['2', ['RD-BUY-0001', 'RD-PROD-0001', 'RD-SEMI-0001']],
      ];
      for (const [keyword, expected] of cases) {
        const response = await list(manager.token, `keyword=${encodeURIComponent(keyword)}`);
        expect(skusOf(response.json()), keyword).toEqual(expected);
      }
    });

    it('filters by source_table, status, base_id and location prefix', async () => {
      expect(skusOf((await list(manager.token, 'source_table=stock_product')).json())).toEqual(['RD-PROD-0001']);
      expect(skusOf((await list(manager.token, `status=${encodeURIComponent('冻结')}`)).json())).toEqual(['RD-FROZEN-0001']);
      expect(skusOf((await list(manager.token, `base_id=${resistor.id}`)).json())).toEqual(['RD-BUY-0001', 'RD-FROZEN-0001']);
      expect(skusOf((await list(manager.token, 'warehouse_location=A/0')).json())).toEqual(['RD-BUY-0001', 'RD-SEMI-0001']);
      expect(skusOf((await list(manager.token, 'warehouse_location=A')).json())).toEqual(['RD-BUY-0001', 'RD-FROZEN-0001', 'RD-SEMI-0001']);
      expect(skusOf((await list(manager.token, 'warehouse_location=B/01&source_table=stock_product')).json())).toEqual(['RD-PROD-0001']);
    });

    it('applies every filter to rows found by a keyword, and counts a row matched twice once', async () => {
      const both = (await list(manager.token, 'keyword=0')).json(); // the skus and the specs of every row hold a 0
      expect(both.total).toBe(4);
      expect(skusOf(both)).toEqual(['RD-BUY-0001', 'RD-FROZEN-0001', 'RD-PROD-0001', 'RD-SEMI-0001']);
      expect(skusOf((await list(manager.token, `keyword=10K&status=${encodeURIComponent('冻结')}`)).json())).toEqual(['RD-FROZEN-0001']);
      expect(skusOf((await list(manager.token, `keyword=${encodeURIComponent('电解')}&source_table=stock_semi`)).json())).toEqual(['RD-SEMI-0001']);
      expect(skusOf((await list(manager.token, `keyword=rd&base_id=${capacitor.id}&warehouse_location=B`)).json())).toEqual(['RD-PROD-0001']);
      const material = (await list(t.adminToken, `keyword=${encodeURIComponent('贴片电阻')}&company=BETA`)).json();
      expect(material).toMatchObject({ total: 1 });
      expect(skusOf(material)).toEqual(['RD-BETA-0001']);
    });

    it('pages with total', async () => {
      const page2 = (await list(manager.token, 'page=2&limit=3')).json();
      expect(page2).toMatchObject({ total: 4, page: 2, limit: 3 });
      expect(page2.items.map((row: StockRowJson) => row.id)).toEqual([buy.id]);
    });

    it('answers every page newest first, the older half too, and an empty page past the end', async () => {
      const idsOf = async (query: string) => (await list(manager.token, query)).json().items.map((row: StockRowJson) => row.id);
      const newestFirst = [frozen.id, product.id, semi.id, buy.id];
      for (const limit of [1, 2, 3]) {
        const pages: number[] = [];
        for (let page = 1; page <= Math.ceil(newestFirst.length / limit); page++) pages.push(...(await idsOf(`page=${page}&limit=${limit}`)));
        expect(pages, `limit ${limit}`).toEqual(newestFirst);
      }
      expect(await idsOf('page=2&limit=1&keyword=rd-')).toEqual([product.id]);
      expect(await idsOf('page=3&limit=1&warehouse_location=A')).toEqual([buy.id]);
      const past = (await list(manager.token, 'page=3&limit=2')).json();
      expect(past).toMatchObject({ items: [], total: 4, page: 3, limit: 2 });
    });

    it('keeps company B out of company A rows; a cross-domain caller sees all or one company', async () => {
      expect(skusOf((await list(betaManager.token)).json())).toEqual(['RD-BETA-0001']);
      expect(skusOf((await list(betaManager.token, 'company=ALPHA')).json())).toEqual(['RD-BETA-0001']);
      expect((await list(t.adminToken)).json().total).toBe(5);
      expect(skusOf((await list(t.adminToken, 'company=BETA')).json())).toEqual(['RD-BETA-0001']);
    });

    it('removes price fields for a caller without the price permissions', async () => {
      const forSales = (await list(sales.token, 'keyword=RD-BUY')).json().items[0];
      expect(forSales.sku).toBe('RD-BUY-0001');
      expect(forSales).not.toHaveProperty('unit_cost');
      expect(forSales).not.toHaveProperty('referencePrice');
      const forManager = (await list(manager.token, 'keyword=RD-BUY')).json().items[0];
      expect(forManager).toMatchObject({ unit_cost: 0.04, referencePrice: 0.05 });
      const detail = (await t.request('GET', `${API}/stock/${buy.id}`, { token: sales.token })).json();
      expect(detail).not.toHaveProperty('unit_cost');
    });

    it('refuses bad filters with 400', async () => {
      for (const query of ['status=sold', 'source_table=stock_x', 'limit=0', 'page=0', 'base_id=abc']) {
        const response = await list(manager.token, query);
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
      }
    });
  });

  describe('GET /inbound/stock/scan', () => {
    const scan = (token: string, barcode: string, path = '/inbound/stock/scan') =>
      t.request('GET', `${API}${path}?barcode=${encodeURIComponent(barcode)}`, { token });

    it('finds the exact sku, in any status, on both paths', async () => {
      for (const path of ['/inbound/stock/scan', '/stock/scan']) {
        const response = await scan(sales.token, 'RD-BUY-0001', path);
        expect(response.statusCode).toBe(200);
        expect(response.json()).toMatchObject({ id: buy.id, sku: 'RD-BUY-0001' });
        expect(response.json()).not.toHaveProperty('unit_cost');
      }
      expect((await scan(manager.token, 'RD-FROZEN-0001')).json()).toMatchObject({ id: frozen.id, status: '冻结' });
    });

    it('answers 403 OTHER_COMPANY with the company for an exact barcode of another company', async () => {
      const response = await scan(manager.token, 'RD-BETA-0001');
      expect(response.statusCode).toBe(403);
      expect(response.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA', msg: expect.stringContaining('BETA') });
      const reverse = await scan(betaManager.token, 'RD-SEMI-0001');
      expect(reverse.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'ALPHA' });
    });

    it('falls back to one partial match within the scope', async () => {
      expect((await scan(manager.token, 'prod-00')).json()).toMatchObject({ id: product.id });
      // BETA's own partial match wins; ALPHA's RD-BUY-0001 is outside its scope
      expect((await scan(betaManager.token, 'RD-B')).json()).toMatchObject({ id: betaRow.id });
    });

    it('is 400 AMBIGUOUS_BARCODE for several partial matches and 404 for none', async () => {
      const ambiguous = await scan(manager.token, 'RD-');
      expect(ambiguous.statusCode).toBe(400);
      expect(ambiguous.json()).toMatchObject({ code: 'AMBIGUOUS_BARCODE', msg: expect.any(String) });
      expect(ambiguous.json().candidates).toHaveLength(4);
      const none = await scan(manager.token, 'NO-SUCH-CODE');
      expect(none.statusCode).toBe(404);
      expect(none.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.stringContaining('NO-SUCH-CODE') });
      // a partial match of another company's rows is not revealed
      expect((await scan(betaManager.token, 'SEMI')).statusCode).toBe(404);
    });

    it('needs a barcode', async () => {
      for (const url of [`${API}/inbound/stock/scan`, `${API}/inbound/stock/scan?barcode=`, `${API}/inbound/stock/scan?barcode=%20%20`]) {
        const response = await t.request('GET', url, { token: manager.token });
        expect(response.statusCode, url).toBe(400);
        expect(response.json().code).toBe('VALIDATION_FAILED');
      }
    });
  });

  describe('a company\'s rows without filters, as the list finds them (decisions Platform 23)', () => {
    let own: TestInventory;
    beforeAll(async () => {
      own = await buildTestInventory();
    });
    afterAll(() => own.close());

    const skusOfCompany = async (company: string) => skusOf((await own.request('GET', `${API}/stock/list?company=${company}&limit=100`, { token: own.adminToken })).json());
    const asSetup = (statement: SQL) => own.service.deps.database.transaction({ actor: 'setup' }, (tx) => tx.execute(statement));

    it('follow stock-in, delete, a row moved to another material and a material moved to another company', async () => {
      const delta = await own.user('WAREHOUSE_MGR', 'DELTA');
      const epsilon = await own.user('WAREHOUSE_MGR', 'EPSILON');
      const deltaMaterial = await createMaterial(own, delta.token, { category: 'DELTA/电子' });
      const epsilonMaterial = await createMaterial(own, epsilon.token, { category: 'EPSILON/电子' });
      const kept = await stockIn(own, delta.token, { base_id: deltaMaterial.id, sku: 'CO-D-1' });
      const deleted = await stockIn(own, delta.token, { base_id: deltaMaterial.id, sku: 'CO-D-2' });
      const moved = await stockIn(own, delta.token, { base_id: deltaMaterial.id, sku: 'CO-D-3' });
      await stockIn(own, epsilon.token, { base_id: epsilonMaterial.id, sku: 'CO-E-1' });
      expect(await skusOfCompany('DELTA')).toEqual(['CO-D-1', 'CO-D-2', 'CO-D-3']);

      expect((await own.request('DELETE', `${API}/stock/${deleted.id}`, { token: delta.token })).statusCode).toBe(200);
      expect(await skusOfCompany('DELTA')).toEqual(['CO-D-1', 'CO-D-3']);

      // No path of the API moves a row to another material, or a material in use to another company: the
      // database keeps the list right should anything else do it.
      await asSetup(sql`update stock_rows set base_id = ${epsilonMaterial.id} where id = ${moved.id}`);
      expect(await skusOfCompany('DELTA')).toEqual(['CO-D-1']);
      expect(await skusOfCompany('EPSILON')).toEqual(['CO-D-3', 'CO-E-1']);

      await asSetup(sql`update materials set company_name = 'ZETA' where id = ${epsilonMaterial.id}`);
      expect(await skusOfCompany('EPSILON')).toEqual([]);
      expect(await skusOfCompany('ZETA')).toEqual(['CO-D-3', 'CO-E-1']);
      expect((await own.request('GET', `${API}/stock/list?company=DELTA`, { token: own.adminToken })).json()).toMatchObject({ total: 1, items: [{ id: kept.id }] });
    });

    it.skipIf(!usingPostgres())('PostgreSQL: a row stocked in while its material moves to another company is listed under the new one', async () => {
      const theta = await own.user('WAREHOUSE_MGR', 'THETA');
      const material = await createMaterial(own, theta.token, { category: 'THETA/电子' });
      const database = own.service.deps.database;
      let moveDone!: () => void;
      const moveMayCommit = new Promise<void>((resolve) => (moveDone = resolve));
      let moved!: () => void;
      const movedUncommitted = new Promise<void>((resolve) => (moved = resolve));
      const move = database.transaction({ actor: 'setup' }, async (tx) => {
        await tx.execute(sql`update materials set company_name = 'IOTA' where id = ${material.id}`);
        moved();
        await moveMayCommit;
      });
      await movedUncommitted;
      const stockedIn = asSetup(sql`insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity)
                                    values ('stock_buy', 'CO-RACE-1', ${material.id}, 1, 1, 1)`);
      try {
        // the insert's trigger waits for the uncommitted move (else it would take the company the move replaces)
        await expect.poll(async () => {
          const [row] = await queryRows<{ n: number }>(own, sql`select count(*)::int as n from pg_stat_activity
            where datname = current_database() and wait_event_type = 'Lock' and query like 'insert into stock_rows%'`);
          return row!.n;
        }, { timeout: 5000 }).toBe(1);
      } finally {
        moveDone();
        await Promise.all([move, stockedIn]);
      }
      expect(await skusOfCompany('IOTA')).toEqual(['CO-RACE-1']);
      expect(await skusOfCompany('THETA')).toEqual([]);
    });
  });

  describe('stock-in date range and export', () => {
    let dated: MaterialJson;
    let early: StockRowJson;
    let middle: StockRowJson;
    let late: StockRowJson;
    beforeAll(async () => {
      dated = await createMaterial(t, manager.token, { name: '日期筛选物料', spec_model: 'DT-SPEC', referencePrice: 2.5 });
      early = await stockIn(t, manager.token, { base_id: dated.id, sku: 'DT-0110', in_date: '2025-01-10', unit_cost: 1.5, batch_number: '=1+1' });
      middle = await stockIn(t, manager.token, { base_id: dated.id, sku: 'DT-0120', in_date: '2025-01-20', source_table: 'stock_semi' });
      late = await stockIn(t, manager.token, { base_id: dated.id, sku: 'DT-0201', in_date: '2025-02-01', source_table: 'stock_product', serial_number: 'SN-DT' });
    });

    const idsOf = async (query: string) =>
      (await list(manager.token, `base_id=${dated.id}&${query}`)).json().items.map((row: StockRowJson) => row.id);

    it('filters the list on in_date with start_date and end_date, a closed interval of days (contract §8)', async () => {
      expect(await idsOf('start_date=2025-01-10&end_date=2025-01-20')).toEqual([middle.id, early.id]);
      expect(await idsOf('start_date=2025-01-11')).toEqual([late.id, middle.id]);
      expect(await idsOf('end_date=2025-01-19')).toEqual([early.id]);
      expect(await idsOf('start_date=2025-01-21&end_date=2025-01-31')).toEqual([]);
      // a datetime bound counts by its Beijing day: 2025-01-19T18:00Z is 2025-01-20 02:00 in Beijing
      expect(await idsOf(`start_date=${encodeURIComponent('2025-01-20T23:00:00+08:00')}&end_date=2025-01-19T18:00:00Z`)).toEqual([middle.id]);
      const total = (await list(manager.token, `base_id=${dated.id}&start_date=2025-01-10&end_date=2025-01-20&limit=1`)).json();
      expect(total).toMatchObject({ total: 2, limit: 1 });
      for (const [query, field] of [['start_date=2025-02-30', 'start_date'], ['end_date=yesterday', 'end_date']] as const) {
        const response = await list(manager.token, query);
        expect(response.statusCode, query).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field, msg: expect.any(String) });
      }
    });

    const exportOf = async (token: string, query: string, path = '/inbound/stock/export') => {
      const response = await t.request('GET', `${API}${path}?${query}`, { token });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['content-type']).toContain('spreadsheetml');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.getWorksheet('库存')!;
      const rows: unknown[][] = [];
      sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      const headers = rows[0] as string[];
      const fileName = decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(String(response.headers['content-disposition']))![1]!);
      return { fileName, headers, lines: rows.slice(1).map((row) => Object.fromEntries(headers.map((header, i) => [header, row[i]]))) };
    };

    it('exports the rows the list filter matches, newest first, with every field of the row', async () => {
      for (const path of ['/inbound/stock/export', '/stock/export']) {
        const file = await exportOf(manager.token, `base_id=${dated.id}`, path);
        expect(file.fileName).toBe('库存清单.xlsx');
        expect(file.lines.map((line) => line['条码'])).toEqual(['DT-0201', 'DT-0120', 'DT-0110']);
        expect(file.lines[2]).toMatchObject({
          ID: early.id, 库存类别: '外购件', 条码: 'DT-0110', 物料ID: dated.id, 物料名称: '日期筛选物料', 规格型号: 'DT-SPEC', 单位: '个',
          公司: 'ALPHA', 库存数量: 10, 可用数量: 10, 入库数量: 10, 状态: '在库', 库位: 'A/01/01', 批次号: "'=1+1", 单位成本: 1.5, 参考价: 2.5,
        });
        expect(file.lines[0]).toMatchObject({ 库存类别: '成品', 序列号: 'SN-DT' });
      }
      const ranged = await exportOf(manager.token, `base_id=${dated.id}&start_date=2025-01-15&keyword=DT-`);
      expect(ranged.lines.map((line) => line['条码'])).toEqual(['DT-0201', 'DT-0120']);
    });

    it('keeps the company scope and leaves out the price columns the caller may not read', async () => {
      const gated = await exportOf(sales.token, `base_id=${dated.id}`);
      expect(gated.lines).toHaveLength(3);
      expect(gated.headers).not.toContain('单位成本');
      expect(gated.headers).not.toContain('参考价');
      expect((await exportOf(betaManager.token, 'keyword=DT-')).lines).toEqual([]);
      expect((await exportOf(betaManager.token, '')).lines.map((line) => line['条码'])).toEqual(['RD-BETA-0001']);
      expect((await exportOf(t.adminToken, 'company=BETA')).lines.map((line) => line['条码'])).toEqual(['RD-BETA-0001']);
      const bad = await t.request('GET', `${API}/stock/export?status=sold`, { token: manager.token });
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
      expect((await t.request('GET', `${API}/stock/export`)).statusCode).toBe(401);
    });

    it('stops at 20,000 rows and says so in the file name', async () => {
      const bulk = await createMaterial(t, manager.token, { name: '批量导出物料' });
      // fixture rows: triggers off for this transaction only (20,001 audit rows would only slow the test)
      await t.service.deps.database.transaction({ actor: 'bulk-fixture' }, async (tx) => {
        await tx.execute(sql`set local session_replication_role = replica`);
        await tx.execute(sql`insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity)
                             select 'stock_buy', 'BULK-EXP-' || n, ${bulk.id}, 1, 1, 1 from generate_series(1, 20001) n`);
      });
      const file = await exportOf(manager.token, `base_id=${bulk.id}`);
      expect(file.fileName).toBe('库存清单（已截断：共20001条，仅导出前20000条）.xlsx');
      expect(file.lines).toHaveLength(20000);
      expect(file.lines[0]!['条码']).toBe('BULK-EXP-20001');
    });
  });
});
