import { runStatement, statement, toQuantityOrZero, type Queryable } from '@wms/platform';
import type { AnyRequestRow, RequestRow } from './request-flow.js';
import type { SharedRequestView } from './schemas.js';

/** What the lines of a page of requests refer to, looked up once per page. */
export interface RequestLookups {
  userNames: Map<number, string>;
  materials: Map<number, { name: string; specModel: string; unit: string }>;
  rows: Map<number, { sku: string; warehouseLocation: string }>;
}

interface LookupRows {
  users: Array<{ id: number; name: string }>;
  materials: Array<{ id: number; name: string; specModel: string; unit: string }>;
  rows: Array<{ id: number; sku: string; warehouseLocation: string }>;
}

const REQUEST_LOOKUPS = statement<LookupRows>(
  'request_lookups',
  `select
    (select coalesce(json_agg(json_build_object('id', id, 'name', name)), '[]')
       from users where id = any($1::int[])) as users,
    (select coalesce(json_agg(json_build_object('id', id, 'name', name, 'specModel', spec_model, 'unit', unit)), '[]')
       from materials where id = any($2::int[])) as materials,
    (select coalesce(json_agg(json_build_object('id', id, 'sku', sku, 'warehouseLocation', warehouse_location)), '[]')
       from stock_rows where id = any($3::int[])) as rows`,
);

/**
 * Applicant names, materials and stock rows of a whole page of requests: one prepared statement (three
 * sub-selects), never one per row — a round trip saved is time every request holds its locks less.
 */
export async function requestLookupsFor(q: Queryable, requests: readonly RequestRow[]): Promise<RequestLookups> {
  const userIds = [...new Set(requests.map((request) => request.applicantId))];
  const lines = requests.flatMap((request) => request.itemsJson);
  const baseIds = [...new Set(lines.map((line) => line.base_id))];
  const stockIds = [...new Set(lines.map((line) => line.stock_id))];
  const [found] = await runStatement(q, REQUEST_LOOKUPS, [userIds, baseIds, stockIds]);
  return {
    userNames: new Map((found?.users ?? []).map((user) => [user.id, user.name])),
    materials: new Map((found?.materials ?? []).map((material) => [material.id, material])),
    rows: new Map((found?.rows ?? []).map((row) => [row.id, row])),
  };
}

export const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** The view fields every request shares besides its lines, whatever its line type. */
export function requestFieldsView(
  row: AnyRequestRow,
  applicantName: string | null,
  statusLabel: (status: number) => string,
): Omit<SharedRequestView, 'items' | 'items_json'> {
  return {
    id: row.id,
    biz_type: row.bizType,
    applicant_id: row.applicantId,
    applicant_name: applicantName,
    company_name: row.companyName,
    status: row.status,
    status_label: statusLabel(row.status),
    remark: row.remark,
    reject_reason: row.rejectReason,
    close_reason: row.closeReason,
    approver_id: row.approverId,
    approved_at: iso(row.approvedAt),
    rejected_at: iso(row.rejectedAt),
    closer_id: row.closerId,
    closed_at: iso(row.closedAt),
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A request line as every flow stores it (scrap adds its own fields on top). */
interface LineLike {
  base_id: number;
  quantity: string | number;
  stock_id: number;
  source_table: string;
  reserved: boolean;
}

type MaterialRef = { name: string; specModel: string; unit: string } | undefined;
type SourceRef = { sku: string; location: string | null } | undefined;

/** One line as `items` shows it: the stored line with its material and its source's sku and location. */
export function sharedLineView(line: LineLike, material: MaterialRef, source: SourceRef) {
  return {
    base_id: line.base_id,
    material_name: material?.name ?? '',
    spec_model: material?.specModel ?? '',
    unit: material?.unit ?? '',
    quantity: toQuantityOrZero(line.quantity),
    stock_id: line.stock_id,
    source_table: line.source_table,
    sku: source?.sku ?? null,
    warehouse_location: source?.location ?? null,
    reserved: line.reserved,
  };
}

/** One line as `items_json` shows it: the stored line only. */
export function sharedLineJson(line: LineLike) {
  return {
    base_id: line.base_id,
    quantity: toQuantityOrZero(line.quantity),
    stock_id: line.stock_id,
    source_table: line.source_table,
    reserved: line.reserved,
  };
}

/** The view fields every request shares; a flow's mapper adds its own (requestViewSchema). */
export function sharedRequestView(row: RequestRow, lookups: RequestLookups, statusLabel: (status: number) => string): SharedRequestView {
  return {
    ...requestFieldsView(row, lookups.userNames.get(row.applicantId) ?? null, statusLabel),
    items: row.itemsJson.map((line) => {
      const stockRow = lookups.rows.get(line.stock_id);
      return sharedLineView(line, lookups.materials.get(line.base_id), stockRow && { sku: stockRow.sku, location: stockRow.warehouseLocation });
    }),
    items_json: row.itemsJson.map(sharedLineJson),
  };
}

/** The views of a page of requests, with one lookup for the whole page. */
export async function requestViewsWith<Row extends RequestRow, View>(
  q: Queryable,
  requests: readonly Row[],
  toView: (row: Row, lookups: RequestLookups) => View,
): Promise<View[]> {
  if (requests.length === 0) return [];
  const lookups = await requestLookupsFor(q, requests);
  return requests.map((request) => toView(request, lookups));
}
