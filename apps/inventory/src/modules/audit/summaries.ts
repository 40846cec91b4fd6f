import { ACTION_LABELS, type AuditAction } from './actions.js';
import { enumLabel, fieldLabel, hasFieldLabel, isHiddenField, referenceOf } from './labels.js';
import { BOM_MODULE, bomKey, isStockRecord, type AuditLookups, type MaterialRef } from './lookups.js';
import { idValue, type AuditRecord } from './records.js';
import { CREDENTIAL_PLACEHOLDER, type AuditChange } from './sanitise.js';
import { beijingTimeText, displayQuantity, printableUnit, sourceOf } from './values.js';

/**
 * The summary of an audit record (spec 2.12 summary rules). The core text is cut at
 * SUMMARY_MAX_LENGTH characters; the source suffix is added after the cut, so it is never lost.
 */
export const SUMMARY_MAX_LENGTH = 120;

/** The quantity slot takes the first of these the snapshot holds; the location slot the first of the others. */
const QUANTITY_FIELDS = ['in_quantity', 'stock_quantity', 'available_quantity'];
const LOCATION_FIELDS = ['warehouse_location', 'location'];
/** The quantity of use of a BOM line, under the names a BOM snapshot may give it. */
const USAGE_FIELDS = ['quantity', 'usage_quantity', 'qty'];

const isBlank = (value: unknown) => value === null || value === undefined || value === '';
const firstPresent = (snapshot: Record<string, unknown>, fields: readonly string[]) =>
  fields.map((field) => snapshot[field]).find((value) => !isBlank(value));

/**
 * A value as a reader wants it: enum label, the name behind an id, a quantity without a trailing .0, an
 * instant in Beijing time.
 */
export function displayValue(module: string, field: string, value: unknown, lookups: AuditLookups): string {
  if (isBlank(value)) return '空';
  const label = enumLabel(module, field, value);
  if (label) return label;
  const id = idValue(value);
  const reference = referenceOf(module, field);
  if (id !== null && reference === 'user') return lookups.userNamesById.get(id) ?? String(id);
  if (id !== null && reference === 'material') return lookups.materials.get(id)?.name ?? String(id);
  if (Array.isArray(value)) return `${value.length} 项`;
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? '是' : '否';
  return beijingTimeText(value) ?? displayQuantity(value);
}

function changeText(module: string, change: AuditChange, lookups: AuditLookups): string {
  const label = fieldLabel(module, change.field);
  if (change.field === CREDENTIAL_PLACEHOLDER) return `${label}: 已修改`;
  return `${label}: ${displayValue(module, change.field, change.old, lookups)}→${displayValue(module, change.field, change.new, lookups)}`;
}

/** Rule 1: 'label: old→new' for every visible change, joined by semicolons. */
function changesSummary(record: AuditRecord, lookups: AuditLookups): string {
  return record.changes
    .filter((change) => !isHiddenField(change.field))
    .map((change) => changeText(record.row.module, change, lookups))
    .join('; ');
}

/** The stock row a stock-table record's target_id names (only those: ids of other tables mean other things). */
export const stockRowOf = (record: AuditRecord, lookups: AuditLookups) =>
  isStockRecord(record) ? lookups.stock.get(idValue(record.row.targetId) ?? 0) : undefined;

/** The material a record is about: its snapshot's base_id, or the stock row its target_id names. */
export function materialOf(record: AuditRecord, lookups: AuditLookups): MaterialRef | undefined {
  const baseId = idValue(record.snapshot.base_id) ?? stockRowOf(record, lookups)?.base_id ?? null;
  return baseId === null ? undefined : lookups.materials.get(baseId);
}

const fallback = (record: AuditRecord) =>
  [ACTION_LABELS[record.action as AuditAction] ?? record.action, record.row.targetName].filter((part) => !isBlank(part)).join(' ');

/** Rule 2: one quantity slot (with the material's unit, never a numeric one) and one location slot. */
function slotSummary(record: AuditRecord, lookups: AuditLookups): string {
  const parts: string[] = [];
  const quantity = firstPresent(record.snapshot, QUANTITY_FIELDS);
  if (quantity !== undefined) {
    const unit = printableUnit(materialOf(record, lookups)?.unit);
    parts.push(`数量: ${displayQuantity(quantity)}${unit ? ` ${unit}` : ''}`);
  }
  const location = firstPresent(record.snapshot, LOCATION_FIELDS);
  if (location !== undefined) parts.push(`库位: ${String(location)}`);
  return parts.length > 0 ? parts.join('; ') : fallback(record);
}

/** Rule 5: a payload names its lists by item count and its labelled plain fields. */
function payloadSummary(record: AuditRecord, lookups: AuditLookups): string {
  const parts: string[] = [];
  for (const [field, value] of Object.entries(record.snapshot)) {
    if (isHiddenField(field) || isBlank(value)) continue;
    const { module } = record.row;
    if (Array.isArray(value)) parts.push(`${fieldLabel(module, field)} ${value.length} 项`);
    else if (typeof value !== 'object' && hasFieldLabel(module, field)) parts.push(`${fieldLabel(module, field)}: ${displayValue(module, field, value, lookups)}`);
  }
  return parts.length > 0 ? parts.join('; ') : fallback(record);
}

/**
 * Rule 4, only for records of the BOM module (decided by the table, never by an id): the child line's
 * child from its snapshot, else (updates) from the record's own table. Null when no child is known.
 */
function bomSummary(record: AuditRecord, lookups: AuditLookups): string | null {
  if (record.row.module !== BOM_MODULE) return null;
  const childId = idValue(record.snapshot.child_id) ?? (record.action === 'UPDATE' ? lookups.bomChildren.get(bomKey(record)) : undefined);
  if (childId === undefined || childId === null) return null;
  const name = lookups.materials.get(childId)?.name ?? `#${childId}`;
  if (record.action === 'UPDATE') return `子件 ${name}:${changesSummary(record, lookups)}`;
  const sku = typeof record.snapshot.child_sku === 'string' ? record.snapshot.child_sku : '';
  const usage = firstPresent(record.snapshot, USAGE_FIELDS);
  const child = `${[sku, name].filter(Boolean).join(' ')}${usage === undefined ? '' : `(用量 ${displayQuantity(usage)})`}`;
  if (record.action === 'CREATE') return `添加子件 ${child}`;
  if (record.action === 'DELETE') return `移除子件 ${child}`;
  return null;
}

function coreSummary(record: AuditRecord, lookups: AuditLookups): string {
  const bom = bomSummary(record, lookups);
  if (bom !== null) return bom;
  if (record.changes.length > 0) return changesSummary(record, lookups);
  if (record.shape === 'payload') return payloadSummary(record, lookups);
  if (record.action === 'CREATE' || record.action === 'DELETE') return slotSummary(record, lookups);
  return '';
}

/** Cut to SUMMARY_MAX_LENGTH characters (code points), the cut marked with '…'. */
export function truncateSummary(text: string): string {
  const characters = [...text];
  return characters.length <= SUMMARY_MAX_LENGTH ? text : `${characters.slice(0, SUMMARY_MAX_LENGTH - 1).join('')}…`;
}

export function summaryOf(record: AuditRecord, lookups: AuditLookups): string {
  const core = truncateSummary(coreSummary(record, lookups));
  const source = sourceOf(record.row.requestUrl);
  if (!source) return core;
  return core ? `${core} (来源:${source})` : `(来源:${source})`;
}
