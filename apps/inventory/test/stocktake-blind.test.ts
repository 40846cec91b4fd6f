import { describe, expect, it } from 'vitest';
import { useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { call, rowsAt, scan, sheetTexts, startSession, stocktakeCast, uniqueZone, unzipEntries, type StocktakeCast } from './stocktake-fixtures.js';

let t: TestInventory;
let w: StocktakeCast;
useTestApp(stocktakeCast, (built) => ({ t, w } = built));

/** Book quantities nobody would type by chance, their differences to the counts, and their sum. */
const BOOK = [7391.27, 6053.81, 4417.93];
const COUNTED = [12, 13];
const SECRETS = ['7391.27', '6053.81', '4417.93', '-7379.27', '7379.27', '-6040.81', '6040.81', '17863.01'];

function leaks(bytes: Buffer | string): string[] {
  const text = typeof bytes === 'string' ? bytes : bytes.toString('utf8');
  return SECRETS.filter((secret) => text.includes(secret));
}

describe('blind stocktake: the book quantity leaves the service nowhere while the session is active', () => {
  it('no response and no export sheet carries it (raw bytes); a finished session shows it', async () => {
    const zone = uniqueZone('BLIND');
    const rows = await rowsAt(t, w.mgr.token, w.material, BOOK.map((quantity, i): [string, number] => [`${zone}/0${i + 1}`, quantity]));
    const answers: Array<{ what: string; body: Buffer | string }> = [];
    const record = async (what: string, method: string, path: string, token: string, body?: unknown) => {
      const response = await call(t, method, path, token, body);
      answers.push({ what, body: response.rawPayload });
      return response;
    };

    const started = await record('start-new', 'POST', '/draft/start-new', w.mgr.token, {
      mode: 'blind', scope_type: 'active', scope_config: { locations: [zone] },
    });
    const sessionId = started.json().session_id as number;
    const s = `session_id=${sessionId}`;
    await record('add 1', 'POST', '/draft/add', w.counter.token, { session_id: sessionId, barcode: rows[0]!.sku, quantity: COUNTED[0] });
    await record('add 2', 'POST', '/draft/add', w.counter2.token, { session_id: sessionId, barcode: rows[1]!.sku, quantity: COUNTED[1], remark: 'x' });
    await record('add again', 'POST', '/draft/add', w.counter2.token, { session_id: sessionId, barcode: rows[1]!.sku, quantity: COUNTED[1] });
    await record('update-quantity', 'POST', '/stocktake/update-quantity', w.counter.token, {
      session_id: sessionId, stock_id: rows[0]!.id, source_table: 'stock_buy', quantity: COUNTED[0],
    });
    await record('update-quantity 404', 'POST', '/stocktake/update-quantity', w.counter.token, {
      session_id: sessionId, stock_id: rows[2]!.id, source_table: 'stock_buy', quantity: 1,
    });
    await record('active-session', 'GET', '/draft/active-session', w.counter.token);
    await record('draft/list', 'GET', `/draft/list?${s}&limit=200`, w.counter.token);
    for (const filter of ['all', 'scanned', 'unscanned', 'match', 'diff']) {
      await record(`merged-list ${filter}`, 'GET', `/draft/merged-list?${s}&status_filter=${filter}&pageSize=200`, w.counter.token);
    }
    await record('merged-list keyword', 'GET', `/draft/merged-list?${s}&keyword=${zone}`, w.counter.token);
    await record('merged-list missing session', 'GET', '/draft/merged-list?session_id=99999', w.counter.token);
    await record('all-items', 'GET', '/stocktake/all-items?limit=200', w.counter.token);
    await record('all-items by id', 'GET', `/stocktake/all-items?${s}`, w.counter.token);
    for (const row of rows) await record(`scan ${row.sku}`, 'GET', `/scan?${s}&barcode=${row.sku}`, w.counter.token);
    await record('variance-report', 'GET', `/variance-report?${s}&limit=200`, w.mgr.token);
    await record('variance-report only_diff', 'GET', `/variance-report?${s}&only_diff=true`, w.mgr.token);
    await record('adjust while active', 'POST', '/adjust', w.mgr.token, { session_id: sessionId });
    await record('recommend', 'GET', '/stocktake/recommend-locations', w.mgr.token);
    await record('tree', 'GET', `/warehouse/tree?prefixes=${zone}`, w.mgr.token);
    const exported = await record('export', 'GET', `/export-stocktake?${s}`, w.mgr.token);
    expect(exported.statusCode).toBe(200);

    for (const answer of answers.filter((a) => a.what !== 'export')) {
      expect(leaks(answer.body), answer.what).toEqual([]);
    }
    const entries = unzipEntries(exported.rawPayload);
    const sheets = [...entries.keys()].filter((name) => /^xl\/worksheets\/sheet\d+\.xml$/.test(name));
    expect(sheets).toHaveLength(4);
    // every entry of the file (sheets, shared strings, …) as raw bytes, then each sheet with its strings resolved
    for (const [name, bytes] of entries) expect(leaks(bytes), name).toEqual([]);
    const sheetText = sheetTexts(entries);
    for (const text of sheetText) expect(leaks(text)).toEqual([]);
    expect(sheetText[0]).toContain('—'); // summary: book total, matched, differing, variance
    expect(sheetText[1]).toContain('—'); // variance detail: book and variance of each counted row
    expect(sheetText[2]).toContain('账面数量'); // matched: the detail columns, no count equals its book here
    expect(sheetText[3]).toContain('—'); // not counted: book
    expect(sheetText[1]).toContain('<v>12</v>'); // counted quantities are shown
    expect(sheetText[1]).toContain('<v>13</v>');
    const workbook = entries.get('xl/workbook.xml')!.toString('utf8');
    for (const name of ['盘点汇总', '盘点差异明细', '盘点一致', '未盘点']) expect(workbook).toContain(name);

    // the search really finds the book once the session is finished
    await call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, { session_id: sessionId });
    const unlockedList = await call(t, 'GET', `/draft/merged-list?${s}`, w.counter.token);
    expect(leaks(unlockedList.rawPayload)).toEqual(expect.arrayContaining(['7391.27', '6053.81', '4417.93']));
    const unlocked = unzipEntries((await call(t, 'GET', `/export-stocktake?${s}`, w.mgr.token)).rawPayload);
    const unlockedSheets = sheetTexts(unlocked);
    expect(leaks(unlockedSheets[0]!)).toContain('17863.01'); // summary: book total
    expect(leaks(unlockedSheets[1]!)).toEqual(expect.arrayContaining(['7391.27', '-7379.27']));
    expect(leaks(unlockedSheets[3]!)).toContain('4417.93'); // not counted
  });

  it('sorts counted items into matched and variance sheets in an active blind session too, book and variance as —', async () => {
    const zone = uniqueZone('BLINDSORT');
    const [same, other] = await rowsAt(t, w.mgr.token, w.material, [[`${zone}/01`, 4], [`${zone}/02`, 9]]);
    const session = await startSession(t, w.mgr.token, { mode: 'blind', scope_type: 'active', scope_config: { locations: [zone] } });
    await scan(t, w.counter.token, session.session_id, same!.sku, 4);
    await scan(t, w.counter.token, session.session_id, other!.sku, 7);
    const sheets = sheetTexts(unzipEntries((await call(t, 'GET', `/export-stocktake?session_id=${session.session_id}`, w.mgr.token)).rawPayload));
    expect(sheets[2]).toContain(same!.sku); // matched
    expect(sheets[2]).not.toContain(other!.sku);
    expect(sheets[1]).toContain(other!.sku); // variance detail
    expect(sheets[1]).not.toContain(same!.sku);
    for (const sheet of [sheets[1]!, sheets[2]!]) expect(sheet).toContain('—');
    expect(sheets[1]).not.toContain('<v>9</v>'); // the book of the differing row stays hidden
    expect(sheets[1]).toContain('<v>7</v>'); // its count is shown
    expect(sheets[1]).toContain('外购件'); // the kind as the stock export names it, not its table
    expect(sheets[1]).not.toContain('stock_buy');
  });

  it('an open session shows the book while active', async () => {
    const zone = uniqueZone('OPEN');
    const [row] = await rowsAt(t, w.mgr.token, w.material, [[zone, 3.5]]);
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    await scan(t, w.counter.token, session.session_id, row!.sku, 3);
    const list = await call(t, 'GET', `/draft/merged-list?session_id=${session.session_id}`, w.counter.token);
    expect(list.json().list[0]).toMatchObject({ stock_qty: 3.5, counted_qty: 3, diff_qty: -0.5 });
    const sheets = unzipEntries((await call(t, 'GET', `/export-stocktake?session_id=${session.session_id}`, w.mgr.token)).rawPayload);
    expect(sheetTexts(sheets)[1]).toContain('<v>3.5</v>');
    // the start and scan times are date cells (Beijing time), not text (decisions Spreadsheet exports 3)
    for (const sheet of sheetTexts(sheets).slice(0, 2)) expect(sheet).not.toMatch(/<t[^>]*>\d{4}-\d{2}-\d{2} \d{2}:\d{2}/);
  });
});
