import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '@wms/platform';
import { referenceOf } from './labels.js';
import { idValue, type AuditRecord } from './records.js';

export const BOM_MODULE = 'BOM管理';
/** Tables whose target_id is a stock row id (the three historical stock tables and the one table of today). */
const STOCK_TABLES = new Set(['stock_rows', 'stock_buy', 'stock_semi', 'stock_product']);
const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export interface MaterialRef {
  id: number;
  name: string;
  spec_model: string;
  unit: string;
}

export interface StockRef {
  id: number;
  sku: string;
  base_id: number;
}

/** What a page of audit records needs from elsewhere, read in one query for the whole page. */
export interface AuditLookups {
  /** username → display name */
  userNames: Map<string, string>;
  /** user id → display name */
  userNamesById: Map<number, string>;
  materials: Map<number, MaterialRef>;
  stock: Map<number, StockRef>;
  /** `<table>:<target_id>` → child material id of a BOM line (for BOM updates without child_id in their snapshot). */
  bomChildren: Map<string, number>;
}

export const bomKey = (record: AuditRecord) => `${record.row.tableName}:${record.row.targetId}`;

export const isStockRecord = (record: AuditRecord) => STOCK_TABLES.has(record.row.tableName);

const needsBomLookup = (record: AuditRecord) =>
  record.row.module === BOM_MODULE && record.action === 'UPDATE' && idValue(record.snapshot.child_id) === null && idValue(record.row.targetId) !== null;

/** Every (field, value) a record shows: its snapshot's top level and both sides of each change. */
function shownValues(record: AuditRecord): Array<[string, unknown]> {
  return [
    ...Object.entries(record.snapshot),
    ...record.changes.flatMap((change): Array<[string, unknown]> => [[change.field, change.old], [change.field, change.new]]),
  ];
}

/**
 * Child ids of BOM lines named only by target_id, looked up in the record's own table, and only when
 * that table has a child_id column (the module decides, never matching an id against other tables).
 */
async function bomChildrenOf(q: Queryable, records: readonly AuditRecord[]): Promise<Map<string, number>> {
  const children = new Map<string, number>();
  const wanted = records.filter(needsBomLookup);
  const tables = [...new Set(wanted.map((record) => record.row.tableName))].filter((table) => TABLE_NAME.test(table));
  if (tables.length === 0) return children;
  const withChild = await queryRows<{ table_name: string }>(
    q,
    sql`select table_name from information_schema.columns
         where table_schema = current_schema() and column_name = 'child_id' and table_name = any(${sql.param(tables)}::text[])`,
  );
  for (const { table_name: table } of withChild) {
    const ids = wanted.filter((record) => record.row.tableName === table).map((record) => idValue(record.row.targetId)!);
    const rows = await queryRows<{ id: number; child_id: number }>(
      q,
      sql`select id, child_id from ${sql.identifier(table)} where id = any(${sql.param([...new Set(ids)])}::int[])`,
    );
    for (const row of rows) children.set(`${table}:${row.id}`, row.child_id);
  }
  return children;
}

interface LookupRows {
  users: Array<{ id: number; username: string; name: string }>;
  materials: MaterialRef[];
  stock: Array<StockRef & Omit<MaterialRef, 'id'>>;
}

/** User and material names (and stock rows for target_display) of a whole page: one query, never one per row. */
export async function loadAuditLookups(q: Queryable, records: readonly AuditRecord[]): Promise<AuditLookups> {
  const bomChildren = await bomChildrenOf(q, records);
  const usernames = new Set<string>();
  const userIds = new Set<number>();
  const materialIds = new Set<number>(bomChildren.values());
  const stockIds = new Set<number>();
  for (const record of records) {
    usernames.add(record.row.username);
    for (const [field, value] of shownValues(record)) {
      const id = idValue(value);
      const reference = id === null ? undefined : referenceOf(record.row.module, field);
      if (reference === 'user') userIds.add(id!);
      if (reference === 'material') materialIds.add(id!);
    }
    const stockId = idValue(record.row.targetId);
    if (isStockRecord(record) && stockId !== null && idValue(record.snapshot.base_id) === null) stockIds.add(stockId);
  }
  const [found] = await queryRows<LookupRows>(
    q,
    sql`select
      (select coalesce(json_agg(json_build_object('id', id, 'username', username, 'name', name)), '[]')
         from users where username = any(${sql.param([...usernames])}::text[]) or id = any(${sql.param([...userIds])}::int[])) as users,
      (select coalesce(json_agg(json_build_object('id', id, 'name', name, 'spec_model', spec_model, 'unit', unit)), '[]')
         from materials where id = any(${sql.param([...materialIds])}::int[])) as materials,
      (select coalesce(json_agg(json_build_object('id', s.id, 'sku', s.sku, 'base_id', s.base_id,
                'name', m.name, 'spec_model', m.spec_model, 'unit', m.unit)), '[]')
         from stock_rows s join materials m on m.id = s.base_id
        where s.id = any(${sql.param([...stockIds])}::int[])) as stock`,
  );
  const stock = found?.stock ?? [];
  const materials = new Map((found?.materials ?? []).map((material) => [material.id, material]));
  for (const row of stock) materials.set(row.base_id, { id: row.base_id, name: row.name, spec_model: row.spec_model, unit: row.unit });
  const users = found?.users ?? [];
  return {
    userNames: new Map(users.map((user) => [user.username, user.name])),
    userNamesById: new Map(users.map((user) => [user.id, user.name])),
    materials,
    stock: new Map(stock.map((row) => [row.id, { id: row.id, sku: row.sku, base_id: row.base_id }])),
    bomChildren,
  };
}
