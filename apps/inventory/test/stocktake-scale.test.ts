import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '@wms/platform/testing';
import { queryRows, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { call, sheetTexts, startSession, stocktakeCast, unzipEntries, type StocktakeCast } from './stocktake-fixtures.js';

let t: TestInventory;
let w: StocktakeCast;
useTestApp(stocktakeCast, (built) => ({ t, w } = built));

const ROWS = 6000;
const COUNTED = 5000;

/** Elapsed time of one call, reported (never asserted: the machine is shared). */
async function timed<T>(label: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await run();
  console.log(`[stocktake scale] ${label}: ${Math.round(performance.now() - started)} ms`);
  return result;
}

describe.skipIf(!usingPostgres())('PostgreSQL: a warehouse-sized count (5,000 counted items)', () => {
  it('merged-list page, generate-missing and export answer the right rows', async () => {
    // 6,000 rows of one material under SCALE/<aisle>/<slot>, by SQL; every fifth counted one less than the book
    await t.service.deps.database.transaction({ actor: 'seed' }, (tx) =>
      tx.execute(sql`insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity, status, warehouse_location)
        select 'stock_buy', 'SCALE-' || lpad(g::text, 5, '0'), ${w.material.id}, 10, 10, 10, '在库',
               'SCALE/' || lpad((g % 40)::text, 2, '0') || '/' || lpad(g::text, 5, '0')
          from generate_series(1, ${ROWS}) g`),
    );
    const session = await startSession(t, w.mgr.token, { mode: 'open', scope_type: 'active', scope_config: { locations: ['SCALE'] } });
    await t.service.deps.database.transaction({ actor: 'seed' }, (tx) =>
      tx.execute(sql`insert into stocktake_drafts (session_id, uuid, stock_id, source_table, base_id, user_id, quantity, scan_time, company_name, book_quantity, book_location)
        select ${session.session_id}, s.sku, s.id, s.source_table, s.base_id, '盘点员乙',
               case when s.id % 5 = 0 then 9 else 10 end, now(), 'ALPHA', s.stock_quantity, s.warehouse_location
          from stock_rows s where s.sku like 'SCALE-%' order by s.id limit ${COUNTED}`),
    );
    await queryRows(t, sql`analyze`);

    const page = await timed('merged-list page 13 of diff rows', () =>
      call(t, 'GET', `/draft/merged-list?session_id=${session.session_id}&status_filter=diff&page=13&pageSize=50`, w.counter.token),
    );
    expect(page.statusCode).toBe(200);
    expect(page.json()).toMatchObject({ total: COUNTED / 5, total_scanned: COUNTED, page: 13, limit: 50 });
    expect(page.json().list).toHaveLength(50);
    expect(page.json().list.every((row: { diff_qty: number; stock_qty: number }) => row.diff_qty === -1 && row.stock_qty === 10)).toBe(true);
    const keyword = await timed('merged-list keyword', () =>
      call(t, 'GET', `/draft/merged-list?session_id=${session.session_id}&keyword=SCALE-0599`, w.counter.token),
    );
    expect(keyword.json().list.map((row: { sku: string }) => row.sku)).toEqual(Array.from({ length: 10 }, (_, i) => `SCALE-0599${i}`).sort((a, b) => {
      const loc = (sku: string) => `SCALE/${String(Number(sku.slice(6)) % 40).padStart(2, '0')}/${sku.slice(6)}`;
      return loc(a) < loc(b) ? -1 : 1;
    }));

    // the first export of a process also pays for loading and compiling the workbook writer
    await timed('export (active, first of the process)', () => call(t, 'GET', `/export-stocktake?session_id=${session.session_id}`, w.mgr.token));
    const exportedActive = await timed('export (active, 6,000 rows)', () => call(t, 'GET', `/export-stocktake?session_id=${session.session_id}`, w.mgr.token));
    expect(exportedActive.statusCode).toBe(200);
    expect(sheetTexts(unzipEntries(exportedActive.rawPayload)).map((xml) => (xml.match(/<row /g) ?? []).length - 1)).toEqual([17, COUNTED / 5, COUNTED - COUNTED / 5, ROWS - COUNTED]);

    const closed = await timed('generate-missing (1,000 missing)', () =>
      call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, { session_id: session.session_id }),
    );
    expect(closed.json()).toEqual({ session_id: session.session_id, generated: ROWS - COUNTED, counted: COUNTED, total: ROWS, status: 'finished' });

    const exported = await timed('export (finished, 6,000 rows)', () => call(t, 'GET', `/export-stocktake?session_id=${session.session_id}`, w.mgr.token));
    const sheets = sheetTexts(unzipEntries(exported.rawPayload));
    const rowsOf = (xml: string) => (xml.match(/<row /g) ?? []).length - 1; // minus the header
    expect(sheets.map(rowsOf)).toEqual([17, COUNTED / 5, COUNTED - COUNTED / 5, ROWS - COUNTED]);
  }, 120_000);
});
