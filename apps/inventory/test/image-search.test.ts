import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { createMaterial, flowCast, queryRows, stockIn, useTestApp, type FlowCast } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { searchImage, uploadImage, type SearchHitJson } from './support/image-upload.js';
import { multipartBody } from './support/multipart.js';
import { syntheticImage } from './support/synthetic-images.js';

let t: TestInventory;
let w: FlowCast;
useTestApp(flowCast, (built) => ({ t, w } = built));

const imagesOf = (baseId: number, token = w.mgr.token) => t.request('GET', `/api/v1/inbound/base/${baseId}/images`, { token });
const imageCount = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from material_images`))[0]!.n;

describe('material images', () => {
  it('stores a photo, lists it with the material and serves its bytes; the type comes from the content', async () => {
    const material = await createMaterial(t, w.mgr.token);
    const png = await syntheticImage(101);
    const stored = await uploadImage(t, w.mgr.token, material.id, png, { filename: 'front.png' });
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json()).toMatchObject({ base_id: material.id, file_name: 'front.png', mime: 'image/png', width: 480, height: 360, byte_size: png.length });

    // a JPEG sent as "side.png / image/png" is stored as what it is
    const jpeg = await sharp(png).jpeg().toBuffer();
    const second = await uploadImage(t, w.mgr.token, material.id, jpeg, { filename: 'side.png', contentType: 'image/png' });
    expect(second.json()).toMatchObject({ mime: 'image/jpeg' });

    const listed = await imagesOf(material.id, w.sales.token);
    expect(listed.statusCode).toBe(200);
    expect(listed.json().map((image: { id: number }) => image.id)).toEqual([stored.json().id, second.json().id]);

    const bytes = await t.request('GET', stored.json().url, { token: w.sales.token });
    expect(bytes.statusCode).toBe(200);
    expect(bytes.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(bytes.rawPayload, png)).toBe(0);

    const [audit] = await queryRows<{ module: string; target_name: string; details: string }>(
      t,
      sql`select module, target_name, details::text as details from audit_logs where table_name = 'material_images' and target_id = ${String(stored.json().id)}`,
    );
    expect(audit).toMatchObject({ module: '物料管理', target_name: 'front.png' });
    expect(audit!.details).toContain('material-images/');
  });

  it('refuses what is not a JPEG, PNG or WebP image, too big a file and a missing file, writing nothing', async () => {
    const material = await createMaterial(t, w.mgr.token);
    const before = await imageCount();
    const text = await uploadImage(t, w.mgr.token, material.id, Buffer.from('not an image at all'), { filename: 'fake.png' });
    expect(text.statusCode).toBe(400);
    expect(text.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });
    const gif = await sharp(await syntheticImage(102)).gif().toBuffer();
    expect((await uploadImage(t, w.mgr.token, material.id, gif, { filename: 'a.gif', contentType: 'image/gif' })).statusCode).toBe(400);

    const huge = await uploadImage(t, w.mgr.token, material.id, Buffer.alloc(21 * 1024 * 1024), { filename: 'big.png' });
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });

    const empty = multipartBody({}, undefined);
    const missing = await t.request('POST', `/api/v1/inbound/base/${material.id}/images`, { token: w.mgr.token, ...empty });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });

    expect(await imageCount()).toBe(before);
    expect((await imagesOf(material.id)).json()).toEqual([]);
  });

  it("keeps another company's material unknown and needs material_list:operation to upload or delete", async () => {
    const material = await createMaterial(t, w.mgr.token);
    const png = await syntheticImage(103);
    const stored = (await uploadImage(t, w.mgr.token, material.id, png)).json();
    const before = await imageCount();

    const foreign = await uploadImage(t, w.betaMgr.token, material.id, png);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect((await imagesOf(material.id, w.betaSales.token)).statusCode).toBe(404);
    expect((await t.request('GET', stored.url, { token: w.betaSales.token })).statusCode).toBe(404);
    expect((await t.request('DELETE', stored.url, { token: w.betaMgr.token })).statusCode).toBe(404);

    const denied = await uploadImage(t, w.sales.token, material.id, png);
    expect(denied.statusCode).toBe(403);
    expect(denied.json()).toMatchObject({ code: 'FORBIDDEN' });
    expect((await t.request('DELETE', stored.url, { token: w.sales.token })).statusCode).toBe(403);
    expect((await t.request('GET', `/api/v1/inbound/base/${material.id}/images/${stored.id + 1000}`, { token: w.mgr.token })).statusCode).toBe(404);
    expect(await imageCount()).toBe(before);

    const removed = await t.request('DELETE', stored.url, { token: w.mgr.token });
    expect(removed.json()).toEqual({ id: stored.id, deleted: true });
    expect((await imagesOf(material.id)).json()).toEqual([]);
    expect((await t.request('GET', stored.url, { token: w.mgr.token })).statusCode).toBe(404);
  });
});

describe('image search', () => {
  it('finds the material of a turned photo with its stock rows, a finished product by its serial number', async () => {
    const part = await createMaterial(t, w.mgr.token);
    const product = await createMaterial(t, w.mgr.token);
    const other = await createMaterial(t, w.mgr.token);
    const partPicture = await syntheticImage(201);
    const productPicture = await syntheticImage(202);
    for (const [material, picture] of [[part, partPicture], [product, productPicture], [other, await syntheticImage(203)]] as const) {
      expect((await uploadImage(t, w.mgr.token, material.id, picture)).statusCode).toBe(201);
    }
    const batch = await stockIn(t, w.inbound.token, { base_id: part.id, batch_number: 'B-201', warehouse_location: 'A/02/01' });
    const serial = await stockIn(t, w.inbound.token, { source_table: 'stock_product', base_id: product.id, in_quantity: 1, serial_number: 'SN-202' });

    const photo = await sharp(productPicture).rotate(90).resize({ width: 300 }).jpeg({ quality: 60 }).toBuffer();
    const response = await searchImage(t, w.sales.token, photo);
    expect(response.statusCode, response.body).toBe(200);
    const [top] = response.json().items as SearchHitJson[];
    expect(top).toMatchObject({ base_id: product.id, name: product.name, spec_model: product.spec_model });
    expect(top!.score).toBeGreaterThan(0.8);
    expect(top!.stock).toEqual([
      expect.objectContaining({ id: serial.id, source_table: 'stock_product', batch_number: 'SN-202', available_quantity: 1 }),
    ]);

    const partHit = (await searchImage(t, w.sales.token, await sharp(partPicture).jpeg({ quality: 30 }).toBuffer())).json().items[0] as SearchHitJson;
    expect(partHit.base_id).toBe(part.id);
    expect(partHit.stock).toEqual([
      expect.objectContaining({ id: batch.id, sku: batch.sku, source_table: 'stock_buy', batch_number: 'B-201', warehouse_location: 'A/02/01', available_quantity: 10 }),
    ]);

    const limited = await searchImage(t, w.sales.token, photo, { limit: '1' });
    expect(limited.json().items).toHaveLength(1);
  });

  it("never shows another company's materials and refuses bad input", async () => {
    const material = await createMaterial(t, w.mgr.token);
    const picture = await syntheticImage(301);
    await uploadImage(t, w.mgr.token, material.id, picture);

    const beta = await searchImage(t, w.betaSales.token, picture);
    expect(beta.statusCode).toBe(200);
    expect((beta.json().items as SearchHitJson[]).map((hit) => hit.base_id)).not.toContain(material.id);

    const notImage = await searchImage(t, w.sales.token, Buffer.from('plain text'));
    expect(notImage.statusCode).toBe(400);
    expect(notImage.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });
    const badLimit = await searchImage(t, w.sales.token, picture, { limit: '0' });
    expect(badLimit.statusCode).toBe(400);
    expect(badLimit.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'limit' });
    const json = await t.request('POST', '/api/v1/common/image-search', { token: w.sales.token, body: { file: 'x' } });
    expect(json.statusCode).toBe(415);
    expect(json.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', field: 'file' });
    expect((await searchImage(t, '', picture)).statusCode).toBe(401);
  });

  it('moves the photos with a material moved to another company: found there, no longer in the old one', async () => {
    const material = await createMaterial(t, w.mgr.token);
    const picture = await syntheticImage(401);
    expect((await uploadImage(t, w.mgr.token, material.id, picture)).statusCode).toBe(201);
    const moved = await t.request('PUT', `/api/v1/inbound/base/${material.id}`, { token: w.admin, body: { company_name: 'BETA' } });
    expect(moved.statusCode, moved.body).toBe(200);

    const hitsOf = async (token: string) => ((await searchImage(t, token, picture)).json().items as SearchHitJson[]).map((hit) => hit.base_id);
    expect(await hitsOf(w.betaSales.token)).toContain(material.id);
    expect(await hitsOf(w.sales.token)).not.toContain(material.id);
    expect((await imagesOf(material.id, w.betaSales.token)).json()).toHaveLength(1);
  });
});
