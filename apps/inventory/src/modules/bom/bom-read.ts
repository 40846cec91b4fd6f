import { eq, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { toQuantityOrZero, type Queryable } from '@wms/platform';
import { bomVersions, materials, users, type BomVersionRow } from '../../db/schema/index.js';
import type { BomLineView } from './schemas.js';

/**
 * The SQL pieces every BOM read shares, so the list, the detail and the versions answer the same
 * fields from one query each (children aggregated in the database, never one query per row).
 */
const creator = alias(users, 'bom_creator');
const publisher = alias(users, 'bom_publisher');

interface ChildJson {
  id: number;
  line_no: number;
  child_id: number;
  child_name: string;
  child_spec_model: string;
  child_category: string;
  child_unit: string;
  quantity: number | string;
  remark: string | null;
}

/** The child lines of the version in the current row, with their materials, as one JSON array. */
const childrenJson = sql<ChildJson[]>`coalesce((
  select json_agg(json_build_object(
    'id', l.id, 'line_no', l.line_no, 'child_id', l.child_id, 'child_name', c.name, 'child_spec_model', c.spec_model,
    'child_category', c.category, 'child_unit', c.unit, 'quantity', l.quantity::text, 'remark', l.remark) order by l.line_no, l.id)
  from bom_lines l join materials c on c.id = l.child_id
  where l.bom_version_id = ${bomVersions.id}), '[]'::json)`;

const childCount = sql<number>`(select count(*)::int from bom_lines l where l.bom_version_id = ${bomVersions.id})`;
const currentNumber = sql<number | null>`(select max(v2.version) from bom_versions v2 where v2.parent_id = ${bomVersions.parentId} and v2.status = 'published')`;
const draftNumber = sql<number | null>`(select d.version from bom_versions d where d.parent_id = ${bomVersions.parentId} and d.status = 'draft')`;
const serialCount = sql<number>`(select count(*)::int from stock_rows s where s.bom_version_id = ${bomVersions.id})`;

/** The version a parent shows in the list: its current published one, or its draft while none is published. */
export const shownVersion: SQL = sql`${bomVersions.id} = (
  select v2.id from bom_versions v2 where v2.parent_id = ${bomVersions.parentId}
  order by (v2.status = 'published') desc, v2.version desc limit 1)`;

const parentColumns = {
  name: materials.name,
  specModel: materials.specModel,
  category: materials.category,
  unit: materials.unit,
};

/**
 * Versions joined with their parent material and the names of who created and published them, with the
 * children, the line and built-serial counts and the parent's draft number computed in the same query.
 */
export function selectVersions(q: Queryable) {
  return q
    .select({
      version: bomVersions,
      parent: parentColumns,
      creatorName: creator.name,
      publisherName: publisher.name,
      currentNumber,
      childCount,
      draftNumber,
      serialCount,
      children: childrenJson,
    })
    .from(bomVersions)
    .innerJoin(materials, eq(materials.id, bomVersions.parentId))
    .leftJoin(creator, eq(creator.id, bomVersions.createdBy))
    .leftJoin(publisher, eq(publisher.id, bomVersions.publishedBy))
    .$dynamic();
}

export interface SelectedVersion {
  version: BomVersionRow;
  creatorName: string | null;
  publisherName: string | null;
  currentNumber: number | null;
  childCount: number;
  parent: { name: string; specModel: string; category: string; unit: string };
}

export function versionFields(row: SelectedVersion) {
  const v = row.version;
  return {
    bom_version_id: v.id,
    parent_id: v.parentId,
    version: v.version,
    status: v.status,
    is_current: v.status === 'published' && v.version === row.currentNumber,
    remark: v.remark,
    company_name: v.companyName,
    created_by: v.createdBy,
    created_by_name: row.creatorName,
    published_by: v.publishedBy,
    published_by_name: row.publisherName,
    published_at: v.publishedAt?.toISOString() ?? null,
    created_at: v.createdAt.toISOString(),
    updated_at: v.updatedAt.toISOString(),
    child_count: Number(row.childCount),
  };
}

export function parentFields(row: SelectedVersion) {
  return {
    parent_name: row.parent.name,
    parent_spec_model: row.parent.specModel,
    parent_category: row.parent.category,
    parent_unit: row.parent.unit,
  };
}

export function childViews(children: ChildJson[] | string | null): BomLineView[] {
  const list: ChildJson[] = typeof children === 'string' ? (JSON.parse(children) as ChildJson[]) : (children ?? []);
  return list.map((child) => ({
    id: child.id,
    line_no: child.line_no,
    child_id: child.child_id,
    child_name: child.child_name,
    child_spec_model: child.child_spec_model,
    child_category: child.child_category,
    child_unit: child.child_unit,
    quantity: toQuantityOrZero(child.quantity),
    remark: child.remark,
  }));
}
