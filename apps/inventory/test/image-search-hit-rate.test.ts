import { describe, expect, it } from 'vitest';
import { createMaterial, useTestApp } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { searchImage, uploadImage, type SearchHitJson } from './support/image-upload.js';
import { syntheticImage, TRANSFORMATIONS } from './support/synthetic-images.js';

/**
 * The measured hit rate of the image search (docs/decisions.md, "Image search"): distinct synthetic
 * pictures are stored, one per material, then searched with turned, resized, cut and re-compressed
 * copies; a hit is the source material ranked first.
 */
const PICTURES = 20;

let t: TestInventory;
let mgr: TestUser;
useTestApp(
  async (app) => ({ mgr: await app.user('WAREHOUSE_MGR', 'ALPHA') }),
  (built) => ({ t, w: { mgr } } = built),
);

describe('image search hit rate', () => {
  it('ranks the source material first for most transformed copies', { timeout: 240_000 }, async () => {
    const originals: Array<{ baseId: number; image: Buffer }> = [];
    for (let seed = 1; seed <= PICTURES; seed++) {
      const material = await createMaterial(t, mgr.token);
      const image = await syntheticImage(seed);
      const stored = await uploadImage(t, mgr.token, material.id, image);
      expect(stored.statusCode, stored.body).toBe(201);
      originals.push({ baseId: material.id, image });
    }

    const rates: Record<string, number> = {};
    let hits = 0;
    for (const transformation of TRANSFORMATIONS) {
      let found = 0;
      for (const original of originals) {
        const response = await searchImage(t, mgr.token, await transformation.apply(original.image), { limit: '5' });
        expect(response.statusCode, response.body).toBe(200);
        const [top] = response.json().items as SearchHitJson[];
        if (top?.base_id === original.baseId) found++;
      }
      rates[transformation.name] = found / originals.length;
      hits += found;
    }
    const overall = hits / (originals.length * TRANSFORMATIONS.length);
    console.log('image search hit@1', JSON.stringify({ overall, ...rates }, null, 1));

    expect(overall).toBeGreaterThanOrEqual(0.9);
    for (const [name, rate] of Object.entries(rates)) expect(rate, name).toBeGreaterThanOrEqual(0.75);
  });
});
