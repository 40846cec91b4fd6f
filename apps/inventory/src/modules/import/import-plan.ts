import type { ImportCell, ImportSheet, Queryable, Tx, UseCaseContext } from '@wms/platform';

export const IMPORT_TYPES = ['material', 'bom'] as const;
export type ImportType = (typeof IMPORT_TYPES)[number];
export const IMPORT_MODES = ['create', 'update'] as const;
export type ImportMode = (typeof IMPORT_MODES)[number];
export type RowStatus = 'success' | 'update' | 'error' | 'duplicate';

/** One sheet row's verdict, the same in preview and execute (execute adds the record's id). */
export interface RowResult {
  row: number;
  status: RowStatus;
  message: string;
  /** The record the row creates or updates (execute), or the one it matched (preview of an update). */
  id?: number | null;
}

/** What validation decided: a verdict per row, and how to write the rows that pass. */
export interface ImportPlan {
  rows: RowResult[];
  /** Header texts the import does not read: unknown, or a field the caller may not write. */
  ignoredColumns: string[];
  /** Writes the success and update rows inside the caller's transaction, filling their ids. */
  apply(tx: Tx): Promise<void>;
}

/** One importable kind: its template, its permission, and its one validation (shared by preview and execute). */
export interface ImportKind {
  type: ImportType;
  permission: string;
  label: string;
  template: { columns: { header: string; note: string; example: string | number }[] };
  plan(ctx: UseCaseContext, q: Queryable, sheet: ImportSheet, mode: ImportMode): Promise<ImportPlan>;
}

/** A column of an import sheet: the field it fills and the header texts that name it. */
export interface ImportColumn<Field extends string> {
  field: Field;
  headers: readonly string[];
  kind: 'text' | 'number' | 'integer';
}

/** Header text as matched: trimmed, a trailing required mark (*) and spaces inside dropped. */
const normaliseHeader = (header: string) => header.replace(/[*＊]\s*$/, '').replace(/\s+/g, '').toLowerCase();

/**
 * Which column index holds each field (the first column naming it wins), and which headers are not read:
 * unknown ones, and a second column naming a field already taken (its cells would be silently lost).
 */
export function mapColumns<Field extends string>(header: string[], columns: readonly ImportColumn<Field>[]) {
  const byHeader = new Map<string, ImportColumn<Field>>();
  for (const column of columns) for (const name of column.headers) byHeader.set(normaliseHeader(name), column);
  const positions = new Map<Field, number>();
  const unknown: string[] = [];
  header.forEach((text, index) => {
    if (!text) return;
    const column = byHeader.get(normaliseHeader(text));
    if (!column || positions.has(column.field)) unknown.push(text);
    else positions.set(column.field, index);
  });
  return { positions, unknown };
}

export type CellRead = { ok: true; value: string | number | null } | { ok: false; msg: string };

/** A cell as the column's kind: text trimmed (numbers written as text), numbers from number or numeric-text cells. */
export function readCell(cell: ImportCell | undefined, kind: ImportColumn<string>['kind'], label: string): CellRead {
  if (cell === undefined || cell === null) return { ok: true, value: null };
  if (kind === 'text') {
    const text = cell instanceof Date ? cell.toISOString().slice(0, 10) : String(cell).trim();
    return { ok: true, value: text === '' ? null : text };
  }
  const number = typeof cell === 'number' ? cell : typeof cell === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(cell) ? Number(cell) : NaN;
  if (!Number.isFinite(number)) return { ok: false, msg: `${label} 应为数字，实际为「${String(cell)}」` };
  if (kind === 'integer' && !Number.isInteger(number)) return { ok: false, msg: `${label} 应为整数，实际为 ${number}` };
  return { ok: true, value: number };
}

/** Counts per status, for the answer's summary line. */
export function countStatuses(rows: RowResult[]): Record<RowStatus, number> {
  const counts: Record<RowStatus, number> = { success: 0, update: 0, error: 0, duplicate: 0 };
  for (const row of rows) counts[row.status] += 1;
  return counts;
}

export const importable = (row: RowResult) => row.status === 'success' || row.status === 'update';
