import type { auditLogs } from '../../db/schema/index.js';
import { normaliseAction } from './actions.js';
import type { HiddenColumns } from './field-codes.js';
import { cleanDetails, type AuditChange } from './sanitise.js';

export type AuditLogRow = typeof auditLogs.$inferSelect;

/** Which of the three snapshot shapes of spec 2.12 a record holds (UPDATE records hold a snapshot too). */
export type SnapshotShape = 'created' | 'deleted_snapshot' | 'payload' | 'snapshot';

/** A stored record made fit to show: action normalised, details cleaned (spec 2.12), snapshot picked. */
export interface AuditRecord {
  row: AuditLogRow;
  action: string;
  details: Record<string, unknown>;
  changes: AuditChange[];
  shape: SnapshotShape | null;
  snapshot: Record<string, unknown>;
}

const SHAPES: SnapshotShape[] = ['created', 'deleted_snapshot', 'payload', 'snapshot'];

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** `hidden`: the columns the reader may not read (field permissions), by table. */
export function auditRecordOf(row: AuditLogRow, hidden: HiddenColumns): AuditRecord {
  const details = cleanDetails(row.details, hidden.get(row.tableName));
  const shape = SHAPES.find((key) => isObject(details[key])) ?? null;
  return {
    row,
    action: normaliseAction(row.action),
    details,
    changes: Array.isArray(details.changes) ? (details.changes as AuditChange[]) : [],
    shape,
    snapshot: shape ? (details[shape] as Record<string, unknown>) : {},
  };
}

/** A positive integer id held by a field, or null. */
export function idValue(value: unknown): number | null {
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,10}$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(n) && n > 0 && n <= 2147483647 ? n : null;
}
