import { sql, type SQL } from 'drizzle-orm';
import { companyCondition, queryRows, requireUploadedFile, toQuantityOrZero, validationFailed, type Queryable, type Upload, type UseCaseContext } from '@wms/platform';
import { materialImages } from '../../db/schema/index.js';
import { queryFeatures, type QueryFeatures } from './image-features.js';
import { hammingDistance } from './perceptual-hash.js';
import { DEFAULT_HITS, MAX_HITS, type MaterialHit } from './schemas.js';

/** Images fetched by each index (colour neighbours, hash neighbours) before the re-ranking in code. */
const CANDIDATES = 60;
/** Stock rows listed per material hit. */
const STOCK_PER_MATERIAL = 20;
/** Weights of the two similarities (measured in image-search-hit-rate.test.ts). */
const HASH_WEIGHT = 0.6;
const COLOUR_WEIGHT = 0.4;
/** Unrelated hashes differ in about 32 bits; descriptor distances beyond COLOUR_SCALE count as unrelated. */
const HASH_SCALE = 32;
const COLOUR_SCALE = 1;
/** Below this a hit is noise, not a look-alike. */
export const MIN_SCORE = 0.3;

interface Candidate {
  id: number;
  base_id: number;
  phash: string;
  embedding: string;
}

/**
 * POST /common/image-search: the materials of the caller's scope whose photos look like the uploaded
 * one, best first, each with its stock rows. Candidates come from two database indexes (nearest
 * descriptors in the cube GiST index, nearest hashes by Hamming distance over the 8 orientations of the
 * photo); the union is re-ranked here by a blend of both similarities, one hit per material.
 */
export async function searchByImage(ctx: UseCaseContext, upload: Upload): Promise<{ items: MaterialHit[] }> {
  const file = requireUploadedFile(upload);
  const limit = hitLimitOf(upload.fields.limit);
  const scope = companyCondition(ctx.scope(upload.fields.company || undefined), materialImages.companyName) ?? sql`true`;
  const features = await queryFeatures(file.data);
  return ctx.read(async (q) => {
    const candidates = await candidatesOf(q, scope, features);
    const best = bestPerMaterial(candidates, features).slice(0, limit);
    return { items: await describeHits(q, best) };
  });
}

function hitLimitOf(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_HITS;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw validationFailed('limit 应为正整数', { field: 'limit' });
  return Math.min(n, MAX_HITS);
}

const cubeOf = (vector: number[]) => sql`cube(array[${sql.raw(vector.map((v) => v.toFixed(4)).join(','))}]::float8[])`;

async function candidatesOf(q: Queryable, scope: SQL, features: QueryFeatures): Promise<Candidate[]> {
  const [asIs, ...turned] = features.variants;
  const target = cubeOf(asIs!.embedding);
  // every orientation of the photo as is, and the upright reading of each undone small turn
  const probes = [...asIs!.hashes, ...turned.map((variant) => variant.hashes[0]!)];
  const hashDistances = sql.join(probes.map((h) => sql`bit_count((phash # ${h.toString()}::bigint)::bit(64))`), sql`, `);
  return queryRows<Candidate>(q, sql`
    with by_colour as (
      select id from material_images where ${scope} order by color_embedding <-> ${target} limit ${CANDIDATES}
    ), by_hash as (
      select id from material_images where ${scope} order by least(${hashDistances}) limit ${CANDIDATES}
    )
    select i.id, i.base_id, i.phash::text as phash, i.color_embedding::text as embedding
      from material_images i
     where i.id in (select id from by_colour union select id from by_hash)`);
}

/** Similarity 0–1 of one stored image to the photo. */
export function similarity(hashDistance: number, colourDistance: number): number {
  const hash = Math.max(0, 1 - hashDistance / HASH_SCALE);
  const colour = Math.max(0, 1 - colourDistance / COLOUR_SCALE);
  return HASH_WEIGHT * hash + COLOUR_WEIGHT * colour;
}

/** The stored image's similarity to the photo's best-matching reading. */
function bestVariantScore(features: QueryFeatures, phash: bigint, embedding: number[]): number {
  return Math.max(
    ...features.variants.map((variant) =>
      similarity(Math.min(...variant.hashes.map((h) => hammingDistance(h, phash))), euclidean(variant.embedding, embedding)),
    ),
  );
}

const parseCube = (text: string) => text.replace(/[()\s]/g, '').split(',').map(Number);

function euclidean(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - (b[i] ?? 0)) ** 2;
  return Math.sqrt(sum);
}

function bestPerMaterial(candidates: Candidate[], features: QueryFeatures) {
  const best = new Map<number, { baseId: number; imageId: number; score: number }>();
  for (const c of candidates) {
    const score = bestVariantScore(features, BigInt(c.phash), parseCube(c.embedding));
    const current = best.get(c.base_id);
    if (score >= MIN_SCORE && (!current || score > current.score || (score === current.score && c.id < current.imageId))) {
      best.set(c.base_id, { baseId: c.base_id, imageId: c.id, score });
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score || a.baseId - b.baseId);
}

interface MaterialRow {
  id: number;
  name: string;
  spec_model: string;
  category: string;
  company_name: string;
}

interface StockRow {
  id: number;
  base_id: number;
  sku: string;
  source_table: string;
  batch_number: string | null;
  warehouse_location: string;
  available_quantity: string;
  status: string;
}

/** Two queries for all hits: their materials, and their stock rows with quantity (finished products by serial). */
async function describeHits(q: Queryable, hits: Array<{ baseId: number; imageId: number; score: number }>): Promise<MaterialHit[]> {
  if (hits.length === 0) return [];
  const ids = sql.join(hits.map((h) => sql`${h.baseId}`), sql`, `);
  const materialRows = await queryRows<MaterialRow>(q, sql`
    select id, name, spec_model, category, company_name from materials where id in (${ids})`);
  const stockRows = await queryRows<StockRow>(q, sql`
    select id, base_id, sku, source_table, batch_number, warehouse_location, available_quantity, status from (
      select s.id, s.base_id, s.sku, s.source_table,
             case when s.source_table = 'stock_product' then s.serial_number else s.batch_number end as batch_number,
             s.warehouse_location, s.available_quantity::text as available_quantity, s.status,
             row_number() over (partition by s.base_id order by s.id) as n
        from stock_rows s
       where s.base_id in (${ids}) and s.stock_quantity > 0) listed
     where n <= ${STOCK_PER_MATERIAL}
     order by base_id, id`);
  const materialsById = new Map(materialRows.map((m) => [m.id, m]));
  return hits.flatMap((hit) => {
    const material = materialsById.get(hit.baseId);
    if (!material) return [];
    return [{
      base_id: material.id,
      name: material.name,
      spec_model: material.spec_model,
      category: material.category,
      company_name: material.company_name,
      score: Math.round(hit.score * 10000) / 10000,
      image_id: hit.imageId,
      stock: stockRows
        .filter((s) => s.base_id === hit.baseId)
        .map((s) => ({
          id: s.id,
          sku: s.sku,
          source_table: s.source_table,
          batch_number: s.batch_number,
          warehouse_location: s.warehouse_location,
          available_quantity: toQuantityOrZero(s.available_quantity), // a JSON number (contract §2)
          status: s.status,
        })),
    }];
  });
}
