import { existsSync } from 'node:fs';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadInventoryConfig } from '../src/config.js';
import { assertUsableFont } from '../src/modules/labels/label-sheet.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { createMaterial, stockIn, type StockRowJson } from './fixtures.js';
import { decodePdfBarcodes, type DecodedBarcode } from './support/pdf-barcodes.js';

const API = '/api/v1';
const STOCK_LABELS = `${API}/inbound/stock/labels`;
const LOCATION_LABELS = `${API}/warehouse/location-labels`;

const textsOf = (barcodes: DecodedBarcode[], format?: string) =>
  [...new Set(barcodes.filter((b) => !format || b.format === format).map((b) => b.text))].sort();

describe('labels: printable barcode sheets', () => {
  let t: TestInventory;
  let clerk: TestUser;
  let betaClerk: TestUser;
  let rows: StockRowJson[];
  let betaRow: StockRowJson;

  beforeAll(async () => {
    t = await buildTestInventory();
    [clerk, betaClerk] = await Promise.all([t.user('SALES', 'ALPHA'), t.user('WAREHOUSE_MGR', 'BETA')]);
    const manager = await t.user('WAREHOUSE_MGR', 'ALPHA');
    const resistor = await createMaterial(t, manager.token, { name: '贴片电阻', spec_model: 'R-10K-0603' });
    const board = await createMaterial(t, manager.token, { name: '控制板', spec_model: 'CB-2' });
    rows = [
      await stockIn(t, manager.token, { base_id: resistor.id, sku: 'LB-BUY-0001', batch_number: 'LOT-1', warehouse_location: 'A/01/01' }),
      await stockIn(t, manager.token, { source_table: 'stock_semi', base_id: board.id, sku: 'LB-SEMI-0001', warehouse_location: 'A/02' }),
      await stockIn(t, manager.token, { source_table: 'stock_product', base_id: board.id, sku: 'LB-PROD-0001', serial_number: 'SN-9', warehouse_location: '一号库/货架3' }),
    ];
    const betaMaterial = await createMaterial(t, betaClerk.token, { name: '贴片电阻', category: 'BETA/电子' });
    betaRow = await stockIn(t, betaClerk.token, { base_id: betaMaterial.id, sku: 'LB-BETA-0001', warehouse_location: 'Z/09' });
  });
  afterAll(() => t.close());

  const print = (url: string, token: string | undefined, body: unknown) => t.request('POST', url, { token, body });

  describe('POST /inbound/stock/labels', () => {
    it('prints a PDF whose barcodes decode back to the rows\' skus, as Code 128 and as QR', async () => {
      const response = await print(STOCK_LABELS, clerk.token, { ids: rows.map((row) => row.id) });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
      expect(response.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
      const barcodes = await decodePdfBarcodes(response.rawPayload);
      const skus = rows.map((row) => row.sku).sort();
      expect(textsOf(barcodes)).toEqual(skus);
      expect(textsOf(barcodes, 'QRCode')).toEqual(skus);
      expect(textsOf(barcodes, 'Code128')).toEqual(skus);
    });

    it('prints only the format asked for, on both stock paths', async () => {
      for (const path of ['/inbound/stock/labels', '/stock/labels']) {
        const response = await print(`${API}${path}`, clerk.token, { ids: [rows[0]!.id, rows[1]!.id], format: 'qr' });
        expect(response.statusCode).toBe(200);
        const barcodes = await decodePdfBarcodes(response.rawPayload);
        expect(barcodes.map((b) => b.format)).toEqual(['QRCode', 'QRCode']);
        expect(textsOf(barcodes)).toEqual([rows[0]!.sku, rows[1]!.sku].sort());
      }
    });

    it('prints one label per id in the list, repeats included, over as many pages as the layout needs', async () => {
      const ids = [rows[0]!.id, rows[0]!.id, rows[1]!.id];
      const response = await print(STOCK_LABELS, clerk.token, { ids, format: 'code128', layout: { columns: 1, rows: 2 } });
      expect(response.statusCode).toBe(200);
      expect((await PDFDocument.load(response.rawPayload)).getPageCount()).toBe(2);
      expect(textsOf(await decodePdfBarcodes(response.rawPayload))).toEqual([rows[0]!.sku, rows[1]!.sku].sort());
    });

    it('is 404 naming the ids that are another company\'s or unknown', async () => {
      const response = await print(STOCK_LABELS, clerk.token, { ids: [rows[0]!.id, betaRow.id, 987654] });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', ids: [betaRow.id, 987654] });
      expect(response.json().msg).toContain(String(betaRow.id));
      const own = await print(STOCK_LABELS, betaClerk.token, { ids: [betaRow.id] });
      expect(own.statusCode).toBe(200);
      expect(textsOf(await decodePdfBarcodes(own.rawPayload))).toEqual([betaRow.sku]);
    });

    it('refuses an empty list, more than 500 ids, a bad format or layout, and a missing token', async () => {
      const id = rows[0]!.id;
      for (const body of [{ ids: [] }, { ids: Array.from({ length: 501 }, () => id) }, { ids: [id], format: 'ean13' }, { ids: [id], layout: { columns: 0, rows: 2 } }, {}]) {
        const response = await print(STOCK_LABELS, clerk.token, body);
        expect(response.statusCode, JSON.stringify(body).slice(0, 60)).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
      }
      expect((await print(STOCK_LABELS, undefined, { ids: [id] })).statusCode).toBe(401);
    });
  });

  describe('POST /warehouse/location-labels', () => {
    it('prints the paths as QR and Code 128; a Chinese path as QR only; a path is normalised', async () => {
      const response = await print(LOCATION_LABELS, clerk.token, { locations: [' A / 01 / 01 ', 'A/02', 'A', '一号库/货架3'] });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('application/pdf');
      const barcodes = await decodePdfBarcodes(response.rawPayload);
      expect(textsOf(barcodes, 'QRCode')).toEqual(['A', 'A/01/01', 'A/02', '一号库/货架3'].sort());
      expect(textsOf(barcodes, 'Code128')).toEqual(['A', 'A/01/01', 'A/02']);
    });

    it('is 404 naming locations that no stock row of the caller\'s company uses', async () => {
      const response = await print(LOCATION_LABELS, clerk.token, { locations: ['A/01', 'Z/09', 'A/0'] });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', locations: ['Z/09', 'A/0'] });
    });

    it('refuses an empty list, an empty path, more than 500 paths and a missing token', async () => {
      for (const locations of [[], [' / '], Array.from({ length: 501 }, () => 'A')]) {
        const response = await print(LOCATION_LABELS, clerk.token, { locations });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String), field: expect.stringMatching(/^locations/) });
      }
      expect((await print(LOCATION_LABELS, undefined, { locations: ['A'] })).statusCode).toBe(401);
    });
  });
});

const FONT = '/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf';

// A configured font is embedded and used for the text; the machine's DejaVu stands in for a CJK font.
describe.skipIf(!existsSync(FONT))('labels with LABEL_FONT_PATH', () => {
  let t: TestInventory;
  afterAll(() => t?.close());

  it('embeds the configured font and still prints scannable barcodes', async () => {
    t = await buildTestInventory({ config: { labelFontPath: FONT } });
    const manager = await t.user('WAREHOUSE_MGR', 'ALPHA');
    const material = await createMaterial(t, manager.token, { name: '贴片电阻', spec_model: 'R-1' });
    const row = await stockIn(t, manager.token, { base_id: material.id, sku: 'LB-FONT-0001', warehouse_location: 'A/01' });
    const response = await print(t, manager.token, row.id);
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.includes('DejaVuSans')).toBe(true);
    expect(textsOf(await decodePdfBarcodes(response.rawPayload))).toEqual(['LB-FONT-0001']);
  });

  const print = (app: TestInventory, token: string, id: number) => app.request('POST', STOCK_LABELS, { token, body: { ids: [id] } });
});

describe('label font settings', () => {
  it('a LABEL_FONT_PATH that does not exist stops the start', () => {
    expect(() => loadInventoryConfig({ LABEL_FONT_PATH: '/nonexistent/font.ttf' })).toThrow(/LABEL_FONT_PATH/);
  });

  it('a file that is no font is refused by the start-up check of the label routes', () => {
    expect(() => assertUsableFont({ path: new URL(import.meta.url).pathname })).toThrow(/LABEL_FONT_PATH/);
  });
});
