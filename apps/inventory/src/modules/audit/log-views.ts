import { beijingIso } from '@wms/platform';
import type { Queryable } from '@wms/platform';
import { ACTION_LABELS, type AuditAction } from './actions.js';
import type { HiddenColumns } from './field-codes.js';
import { loadAuditLookups, type AuditLookups, type MaterialRef } from './lookups.js';
import { moduleLabel } from './modules.js';
import { auditRecordOf, idValue, type AuditLogRow, type AuditRecord } from './records.js';
import type { AuditLogView } from './schemas.js';
import { stockRowOf, summaryOf } from './summaries.js';
import { sourceOf } from './values.js';

function displayOf(sku: unknown, material: MaterialRef): string {
  const name = `${material.name}${material.spec_model ? ` (${material.spec_model})` : ''}`;
  return typeof sku === 'string' && sku !== '' ? `${sku} - ${name}` : name;
}

/**
 * target_display (spec 2.12) only in the two unambiguous ways: the snapshot's base_id (with the
 * snapshot's sku), or a stock-table record whose target_id finds its stock row. Otherwise null.
 */
function targetDisplayOf(record: AuditRecord, lookups: AuditLookups): string | null {
  const baseId = idValue(record.snapshot.base_id);
  if (baseId !== null) {
    const material = lookups.materials.get(baseId);
    return material ? displayOf(record.snapshot.sku, material) : null;
  }
  const row = stockRowOf(record, lookups);
  const material = row ? lookups.materials.get(row.base_id) : undefined;
  return row && material ? displayOf(row.sku, material) : null;
}

/** The only way an audit record leaves the service (list, detail, export and daily report read it). */
export function toAuditLogView(record: AuditRecord, lookups: AuditLookups): AuditLogView {
  const { row } = record;
  return {
    id: row.id,
    module: row.module,
    module_label: moduleLabel(row.module),
    action: record.action,
    action_label: ACTION_LABELS[record.action as AuditAction] ?? null,
    table_name: row.tableName,
    target_id: row.targetId,
    target_name: row.targetName,
    target_display: targetDisplayOf(record, lookups),
    summary: summaryOf(record, lookups),
    username: row.username,
    user_display: lookups.userNames.get(row.username) ?? (row.username === 'system' ? '系统' : null),
    company_name: row.companyName,
    source: sourceOf(row.requestUrl),
    time: beijingIso(row.createdAt),
    details: record.details,
  };
}

export interface AuditPageEntry {
  record: AuditRecord;
  view: AuditLogView;
}

export interface AuditPage {
  entries: AuditPageEntry[];
  lookups: AuditLookups;
}

/** Records and views of a page, with one lookup for the whole page; `hidden`: what the reader may not read. */
export async function auditPageOf(q: Queryable, rows: readonly AuditLogRow[], hidden: HiddenColumns): Promise<AuditPage> {
  const records = rows.map((row) => auditRecordOf(row, hidden));
  const lookups = await loadAuditLookups(q, records);
  return { entries: records.map((record) => ({ record, view: toAuditLogView(record, lookups) })), lookups };
}

export async function auditViewsOf(q: Queryable, rows: readonly AuditLogRow[], hidden: HiddenColumns): Promise<AuditLogView[]> {
  return (await auditPageOf(q, rows, hidden)).entries.map((entry) => entry.view);
}
