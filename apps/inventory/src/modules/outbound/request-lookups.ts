import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '@wms/platform';
import type { OutboundRequestRow } from '../../db/schema/index.js';
import { toRequestView, type RequestLookups } from './request-mapper.js';
import type { OutboundRequestView } from './schemas.js';

interface LookupRows {
  users: Array<{ id: number; name: string }>;
  materials: Array<{ id: number; name: string; specModel: string; unit: string }>;
  rows: Array<{ id: number; sku: string; warehouseLocation: string }>;
}

/**
 * Applicant names, materials and stock rows of a whole page of requests: one query (three
 * sub-selects), never one per row — a round trip saved is time every request holds its locks less.
 */
async function lookupsFor(q: Queryable, requests: readonly OutboundRequestRow[]): Promise<RequestLookups> {
  const userIds = [...new Set(requests.map((request) => request.applicantId))];
  const lines = requests.flatMap((request) => request.itemsJson);
  const baseIds = [...new Set(lines.map((line) => line.base_id))];
  const stockIds = [...new Set(lines.map((line) => line.stock_id))];
  const [found] = await queryRows<LookupRows>(
    q,
    sql`select
      (select coalesce(json_agg(json_build_object('id', id, 'name', name)), '[]')
         from users where id = any(${sql.param(userIds)}::int[])) as users,
      (select coalesce(json_agg(json_build_object('id', id, 'name', name, 'specModel', spec_model, 'unit', unit)), '[]')
         from materials where id = any(${sql.param(baseIds)}::int[])) as materials,
      (select coalesce(json_agg(json_build_object('id', id, 'sku', sku, 'warehouseLocation', warehouse_location)), '[]')
         from stock_rows where id = any(${sql.param(stockIds)}::int[])) as rows`,
  );
  return {
    userNames: new Map((found?.users ?? []).map((user) => [user.id, user.name])),
    materials: new Map((found?.materials ?? []).map((material) => [material.id, material])),
    rows: new Map((found?.rows ?? []).map((row) => [row.id, row])),
  };
}

export async function toRequestViews(q: Queryable, requests: readonly OutboundRequestRow[]): Promise<OutboundRequestView[]> {
  if (requests.length === 0) return [];
  const lookups = await lookupsFor(q, requests);
  return requests.map((request) => toRequestView(request, lookups));
}

export async function toRequestViewOf(q: Queryable, request: OutboundRequestRow): Promise<OutboundRequestView> {
  const [view] = await toRequestViews(q, [request]);
  return view!;
}
