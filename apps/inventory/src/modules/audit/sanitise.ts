/**
 * The response rules of spec 2.12 for what a stored audit record may show. Everything here builds new
 * values: the stored record is never changed.
 */

/** A field name that holds a credential; removed at every depth. */
const CREDENTIAL_FIELD = /password|passwd|secret|token|private_key/i;

/**
 * An object representation a program wrote instead of a value ('<User 5>', '<Decimal 1.5>'): '<', a
 * class name, a space, content, '>'. A remark like '<急件>' has no class name and a space, so it stays.
 */
const OBJECT_REPRESENTATION = /^<[A-Za-z_][A-Za-z0-9_.]* .+>$/s;

export const isCredentialField = (name: string): boolean => CREDENTIAL_FIELD.test(name);
export const isObjectRepresentation = (value: unknown): boolean => typeof value === 'string' && OBJECT_REPRESENTATION.test(value);

const DROPPED = Symbol('dropped');

/**
 * A quantity a request's items_json keeps as exact decimal text ("0.5"): answered as the JSON number it is
 * (contract §2: quantities are JSON numbers out), like the numeric columns beside it.
 */
const QUANTITY_KEY = /(quantity|qty)$/i;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
const asQuantity = (key: string, value: unknown) =>
  QUANTITY_KEY.test(key) && typeof value === 'string' && DECIMAL_TEXT.test(value) ? Number(value) : value;

function cleanAny(value: unknown): unknown {
  if (isObjectRepresentation(value)) return DROPPED;
  if (Array.isArray(value)) return value.map(cleanAny).filter((item) => item !== DROPPED);
  if (value !== null && typeof value === 'object') {
    const clean: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) {
      if (isCredentialField(key)) continue;
      const kept = cleanAny(inner);
      if (kept !== DROPPED) clean[key] = asQuantity(key, kept);
    }
    return clean;
  }
  return value;
}

/** A value without credential fields (any depth) and without object representations (dropped, or null at the top). */
export function cleanValue(value: unknown): unknown {
  const clean = cleanAny(value);
  return clean === DROPPED ? null : clean;
}

export interface AuditChange {
  field: string;
  old: unknown;
  new: unknown;
}

const isBlank = (value: unknown) => value === null || value === undefined || value === '';

/**
 * The changes a reader should see: no credential field, object representations read as empty, and
 * no change left that is only null ↔ '' (or that stripping made equal).
 */
export function visibleChanges(changes: unknown): AuditChange[] {
  if (!Array.isArray(changes)) return [];
  const visible: AuditChange[] = [];
  for (const change of changes) {
    if (change === null || typeof change !== 'object') continue;
    const { field, old: before, new: after } = change as Record<string, unknown>;
    if (typeof field !== 'string' || isCredentialField(field)) continue;
    const oldValue = cleanValue(before ?? null);
    const newValue = cleanValue(after ?? null);
    if (field !== CREDENTIAL_PLACEHOLDER && isBlank(oldValue) && isBlank(newValue)) continue;
    if (field !== CREDENTIAL_PLACEHOLDER && JSON.stringify(oldValue) === JSON.stringify(newValue)) continue;
    visible.push({ field, old: oldValue, new: newValue });
  }
  return visible;
}

/** The trigger's stand-in change when only a credential column changed (never its value). */
export const CREDENTIAL_PLACEHOLDER = 'credentials';

/**
 * The details of a record as answered: every part cleaned, changes filtered, and the columns the reader may not
 * read (`hidden`, field permissions) left out of the snapshots and the changes alike.
 */
export function cleanDetails(details: unknown, hidden?: ReadonlySet<string>): Record<string, unknown> {
  if (details === null || typeof details !== 'object' || Array.isArray(details)) return {};
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (isCredentialField(key)) continue;
    clean[key] = key === 'changes' ? visibleChanges(value) : cleanValue(value);
  }
  return hidden ? withoutHidden(clean, hidden) : clean;
}

function withoutHidden(details: Record<string, unknown>, hidden: ReadonlySet<string>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(details)) {
    if (key === 'changes') kept[key] = (value as AuditChange[]).filter((change) => !hidden.has(change.field));
    else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      kept[key] = Object.fromEntries(Object.entries(value).filter(([field]) => !hidden.has(field)));
    } else kept[key] = value;
  }
  return kept;
}
