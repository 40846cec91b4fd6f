import { sql } from 'drizzle-orm';
import { queryRows, toQuantityOrZero, type Queryable } from '@wms/platform';
import type { ScrapLine, ScrapRequestRow } from '../../db/schema/index.js';
import { iso, requestFieldsView, sharedLineJson, sharedLineView } from '../request-workflow/request-views.js';
import { statusLabel } from './request-status.js';
import { isStockSource } from './scrap-modes.js';
import type { ScrapRequestView } from './schemas.js';

/** What a scrap line's source is called and where it is, per source table and id. */
interface SourceRef {
  sku: string;
  location: string | null;
}

interface ScrapLookups {
  userNames: Map<number, string>;
  materials: Map<number, { name: string; specModel: string; unit: string }>;
  /** `${source_table}:${id}` → the stock row, borrow line or ledger entry the line names. */
  sources: Map<string, SourceRef>;
}

interface LookupRows {
  users: Array<{ id: number; name: string }>;
  materials: Array<{ id: number; name: string; specModel: string; unit: string }>;
  rows: Array<{ id: number; kind: string; sku: string; location: string }>;
  borrows: Array<{ id: number; sku: string; location: string }>;
  ledger: Array<{ id: number; sku: string }>;
}

const sourceKey = (sourceTable: string, id: number) => `${sourceTable}:${id}`;

/**
 * Applicants, materials and the sources of a page of scrap requests in one query (five sub-selects):
 * a line's stock_id is a stock row, a borrow line or a ledger entry, as its source_table says.
 */
async function scrapLookupsFor(q: Queryable, requests: readonly ScrapRequestRow[]): Promise<ScrapLookups> {
  const lines = requests.flatMap((request) => request.itemsJson);
  const ids = (pick: (line: ScrapLine) => boolean) => [...new Set(lines.filter(pick).map((line) => line.stock_id))];
  const [found] = await queryRows<LookupRows>(
    q,
    sql`select
      (select coalesce(json_agg(json_build_object('id', id, 'name', name)), '[]')
         from users where id = any(${sql.param([...new Set(requests.map((request) => request.applicantId))])}::int[])) as users,
      (select coalesce(json_agg(json_build_object('id', id, 'name', name, 'specModel', spec_model, 'unit', unit)), '[]')
         from materials where id = any(${sql.param([...new Set(lines.map((line) => line.base_id))])}::int[])) as materials,
      (select coalesce(json_agg(json_build_object('id', id, 'kind', source_table, 'sku', sku, 'location', warehouse_location)), '[]')
         from stock_rows where id = any(${sql.param(ids((line) => isStockSource(line.source_table)))}::int[])) as rows,
      (select coalesce(json_agg(json_build_object('id', id, 'sku', sku, 'location', location)), '[]')
         from trans_borrow where id = any(${sql.param(ids((line) => line.source_table === 'trans_borrow'))}::int[])) as borrows,
      (select coalesce(json_agg(json_build_object('id', id, 'sku', sku)), '[]')
         from trans_defective_goods where id = any(${sql.param(ids((line) => line.source_table === 'trans_defective_goods'))}::int[])) as ledger`,
  );
  const sources = new Map<string, SourceRef>();
  for (const row of found?.rows ?? []) sources.set(sourceKey(row.kind, row.id), { sku: row.sku, location: row.location });
  for (const line of found?.borrows ?? []) sources.set(sourceKey('trans_borrow', line.id), { sku: line.sku, location: line.location });
  for (const entry of found?.ledger ?? []) sources.set(sourceKey('trans_defective_goods', entry.id), { sku: entry.sku, location: null });
  return {
    userNames: new Map((found?.users ?? []).map((user) => [user.id, user.name])),
    materials: new Map((found?.materials ?? []).map((material) => [material.id, material])),
    sources,
  };
}

/** The only way a scrap request leaves the service. */
function toScrapRequestView(row: ScrapRequestRow, lookups: ScrapLookups): ScrapRequestView {
  return {
    ...requestFieldsView(row, lookups.userNames.get(row.applicantId) ?? null, statusLabel),
    mode: row.mode,
    reason_category: row.reasonCategory,
    items: row.itemsJson.map((line) => ({
      ...sharedLineView(line, lookups.materials.get(line.base_id), lookups.sources.get(sourceKey(line.source_table, line.stock_id))),
      scrap_qty: toQuantityOrZero(line.quantity),
      location: line.location,
    })),
    items_json: row.itemsJson.map((line) => ({ ...sharedLineJson(line), scrap_qty: toQuantityOrZero(line.quantity), location: line.location })),
    reason: row.reason,
    allowed_approvers: row.allowedApprovers,
    track_ref: row.trackRef,
    executor_id: row.executorId,
    executed_at: iso(row.executedAt),
  };
}

/** Views of a page of scrap requests, with one lookup query for the whole page. */
export async function toScrapRequestViews(q: Queryable, requests: readonly ScrapRequestRow[]): Promise<ScrapRequestView[]> {
  if (requests.length === 0) return [];
  const lookups = await scrapLookupsFor(q, requests);
  return requests.map((request) => toScrapRequestView(request, lookups));
}

export async function toScrapRequestViewOf(q: Queryable, request: ScrapRequestRow): Promise<ScrapRequestView> {
  const [view] = await toScrapRequestViews(q, [request]);
  return view!;
}
