import { inArray } from 'drizzle-orm';
import type { Queryable } from '@wms/platform';
import { materials, stockRows, users, type OutboundRequestRow } from '../../db/schema/index.js';
import { toRequestView, type RequestLookups } from './request-mapper.js';
import type { OutboundRequestView } from './schemas.js';

/** Applicant names, materials and stock rows of a whole page of requests: three queries, never one per row. */
async function lookupsFor(q: Queryable, requests: readonly OutboundRequestRow[]): Promise<RequestLookups> {
  const userIds = [...new Set(requests.map((request) => request.applicantId))];
  const lines = requests.flatMap((request) => request.itemsJson);
  const baseIds = [...new Set(lines.map((line) => line.base_id))];
  const stockIds = [...new Set(lines.map((line) => line.stock_id))];
  // One after another: inside a transaction the three share one connection.
  const userRows = userIds.length ? await q.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, userIds)) : [];
  const materialRows = baseIds.length
    ? await q
        .select({ id: materials.id, name: materials.name, specModel: materials.specModel, unit: materials.unit })
        .from(materials)
        .where(inArray(materials.id, baseIds))
    : [];
  const rowRows = stockIds.length
    ? await q
        .select({ id: stockRows.id, sku: stockRows.sku, warehouseLocation: stockRows.warehouseLocation })
        .from(stockRows)
        .where(inArray(stockRows.id, stockIds))
    : [];
  return {
    userNames: new Map(userRows.map((user) => [user.id, user.name])),
    materials: new Map(materialRows.map((material) => [material.id, material])),
    rows: new Map(rowRows.map((row) => [row.id, row])),
  };
}

export async function toRequestViews(q: Queryable, requests: readonly OutboundRequestRow[]): Promise<OutboundRequestView[]> {
  const lookups = await lookupsFor(q, requests);
  return requests.map((request) => toRequestView(request, lookups));
}

export async function toRequestViewOf(q: Queryable, request: OutboundRequestRow): Promise<OutboundRequestView> {
  const [view] = await toRequestViews(q, [request]);
  return view!;
}
