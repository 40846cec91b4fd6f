import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { createProduct } from './scope-fixtures.js';

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Width and height from the IHDR chunk, which always follows the 8-byte signature. */
function pngSize(png: Buffer) {
  expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
  expect(png.subarray(12, 16).toString('ascii')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('GET /products/qrcode/{sn}', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('answers a 300×300 PNG without any token', async () => {
    const product = await createProduct(t);
    const res = await t.request('GET', `/api/v1/products/qrcode/${product.serial_number}`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(pngSize(res.rawPayload)).toEqual({ width: 300, height: 300 });
  });

  it('stays 300×300 for short, long and unknown strings (it renders only the given string)', async () => {
    for (const sn of ['A', '0123456789ABCDEF', 'X'.repeat(64), 'not-a-product_~!']) {
      const res = await t.request('GET', `/api/v1/products/qrcode/${encodeURIComponent(sn)}`);
      expect(res.statusCode, sn).toBe(200);
      expect(pngSize(res.rawPayload), sn).toEqual({ width: 300, height: 300 });
    }
  });

  it('renders different strings differently and the same string identically', async () => {
    const a1 = (await t.request('GET', '/api/v1/products/qrcode/AAAAAAAAAAAAAAAA')).rawPayload;
    const a2 = (await t.request('GET', '/api/v1/products/qrcode/AAAAAAAAAAAAAAAA')).rawPayload;
    const b = (await t.request('GET', '/api/v1/products/qrcode/BBBBBBBBBBBBBBBB')).rawPayload;
    expect(a1.equals(a2)).toBe(true);
    expect(a1.equals(b)).toBe(false);
  });

  it('ignores a token but never needs one, and answers bad serials with 422 {msg, code}', async () => {
    const withToken = await t.request('GET', '/api/v1/products/qrcode/ABC', { token: 'garbage' });
    expect(withToken.statusCode).toBe(200);
    for (const sn of ['X'.repeat(65), encodeURIComponent('有中文'), encodeURIComponent('with space')]) {
      const res = await t.request('GET', `/api/v1/products/qrcode/${sn}`);
      expect(res.statusCode, sn).toBe(422);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(typeof res.json().msg).toBe('string');
    }
  });

  it('is documented as public in OpenAPI', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json();
    const operation = doc.paths['/api/v1/products/qrcode/{sn}'].get;
    expect(operation.security).toEqual([]);
  });
});
