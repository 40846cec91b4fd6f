import { coalescedStatement, runCoalesced, tableColumns, type Queryable } from '@wms/platform';
import { stockRows, type OutboundRequestRow } from '../../db/schema/index.js';
import { actorVersionSql } from '../identity/actor-loader.js';
import type { StockRowWithMaterial } from '../stock/stock-rows.js';

const rowColumns = tableColumns(stockRows, 's', 's_');

/**
 * GET /outbound/scan in one round trip: the caller's account version (so a cached actor is confirmed
 * here), what the scan needs of the request named (any company: the use case applies the scope), and the
 * row of the barcode with its material. Built once, prepared once per connection; the scans of many
 * handhelds at the same moment go in one statement (coalescedStatement), each its one row.
 */
const SCAN = coalescedStatement<Record<string, unknown> & { actor_version: string | null; request_found: boolean; row_found: boolean }>(
  'outbound_scan',
  `select item.n::int as item, (select version from (${actorVersionSql('item.user_id')}) as actor) as actor_version,
          r.id is not null as request_found, r.company_name as request_company, r.biz_type as request_biz_type,
          r.status as request_status, r.items_json as request_items,
          s.id is not null as row_found, ${rowColumns.select},
          m.name as "m_materialName", m.spec_model as "m_specModel", m.category as "m_category", m.unit as "m_unit",
          m.company_name as "m_companyName", m.reference_price as "m_referencePrice"
     from unnest($1::int[], $2::text[], $3::int[]) with ordinality as item(user_id, barcode, request_id, n)
     left join outbound_requests r on r.id = item.request_id
     left join (stock_rows s join materials m on m.id = s.base_id) on s.sku = item.barcode`,
);

/** What the scan needs of the request: its company (scope) and what the add-back reads. */
export type ScanRequest = Pick<OutboundRequestRow, 'companyName' | 'bizType' | 'status' | 'itemsJson'>;

export interface ScanLookup {
  actorVersion: string | null;
  request: ScanRequest | null;
  row: StockRowWithMaterial | null;
}

export async function lookUpScan(q: Queryable, userId: number, barcode: string, requestId: number | undefined): Promise<ScanLookup> {
  const [found] = await runCoalesced(q, SCAN, [userId, barcode, requestId ?? null]);
  if (!found) return { actorVersion: null, request: null, row: null };
  return {
    actorVersion: found.actor_version,
    request: found.request_found ? requestOf(found) : null,
    row: found.row_found ? { ...rowColumns.map(found), ...materialOf(found) } : null,
  };
}

function requestOf(found: Record<string, unknown>): ScanRequest {
  return {
    companyName: found.request_company as string,
    bizType: found.request_biz_type as string,
    status: found.request_status as ScanRequest['status'],
    itemsJson: found.request_items as ScanRequest['itemsJson'],
  };
}

function materialOf(found: Record<string, unknown>) {
  return {
    materialName: found.m_materialName as string,
    specModel: found.m_specModel as string,
    category: found.m_category as string,
    unit: found.m_unit as string,
    companyName: found.m_companyName as string,
    referencePrice: found.m_referencePrice as string | null,
  };
}
