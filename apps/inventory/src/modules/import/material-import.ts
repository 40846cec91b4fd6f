import { and, eq, inArray } from 'drizzle-orm';
import {
  AppError,
  companyCondition,
  compileValueChecker,
  isCrossDomain,
  validationFailed,
  type ImportSheet,
  type Queryable,
  type Tx,
  type UseCaseContext,
} from '@wms/platform';
import { materials, users, type MaterialRow } from '../../db/schema/index.js';
import { requireCategory } from '../materials/category-path.js';
import { dropUnwritableFields } from '../materials/field-permissions.js';
import { changesAnything, changesThresholds, columnValues, type ColumnValues } from '../materials/material-service.js';
import { CreateMaterialBody, UpdateMaterialBody, type MaterialInput } from '../materials/schemas.js';
import { specSuggestionCache } from '../materials/spec-suggestion-cache.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { mapColumns, readCell, type ImportColumn, type ImportKind, type ImportMode, type ImportPlan, type RowResult } from './import-plan.js';

type Field = 'base_id' | keyof CreateMaterialBody;

/** Headers as the material export writes them, so an exported file imports as it is. */
const COLUMNS: readonly (ImportColumn<Field> & { note: string; example: string | number })[] = [
  { field: 'base_id', headers: ['物料ID', 'base_id', 'id'], kind: 'integer', note: '更新模式按此匹配已有物料；新建时留空', example: '' },
  { field: 'name', headers: ['名称', '物料名称', 'name'], kind: 'text', note: '必填', example: '电阻' },
  { field: 'spec_model', headers: ['规格型号', 'spec_model'], kind: 'text', note: '与名称一起识别重复', example: '0603 10kΩ' },
  { field: 'category', headers: ['分类', 'category'], kind: 'text', note: '必填，以 / 分隔，第一段为所属部门', example: 'ALPHA/电子/电阻' },
  { field: 'unit', headers: ['单位', 'unit'], kind: 'text', note: '', example: '个' },
  { field: 'company_name', headers: ['公司', 'company_name'], kind: 'text', note: '仅跨公司账号填写，其余账号按本公司导入', example: '' },
  { field: 'purchaseLink', headers: ['采购链接', 'purchaseLink'], kind: 'text', note: '需 material_list:purchaseLink', example: '' },
  { field: 'referencePrice', headers: ['参考价', 'referencePrice'], kind: 'number', note: '需 material_list:referencePrice', example: 0.05 },
  { field: 'productImageRemark', headers: ['产品图片备注', 'productImageRemark'], kind: 'text', note: '需 material_list:remark_edit', example: '' },
  { field: 'manualLinkRemark', headers: ['说明书链接备注', 'manualLinkRemark'], kind: 'text', note: '需 material_list:remark_edit', example: '' },
  { field: 'remark', headers: ['备注', 'remark'], kind: 'text', note: '', example: '' },
  { field: 'red_threshold', headers: ['红色阈值', 'red_threshold'], kind: 'number', note: '', example: 100 },
  { field: 'yellow_threshold', headers: ['黄色阈值', 'yellow_threshold'], kind: 'number', note: '', example: 500 },
  { field: 'target_threshold', headers: ['目标库存', 'target_threshold'], kind: 'number', note: '', example: 1000 },
];
const LABEL = new Map(COLUMNS.map((column) => [column.field, column.headers[0]!]));

const checkCreate = compileValueChecker<MaterialInput>(CreateMaterialBody);
const checkUpdate = compileValueChecker<MaterialInput>(UpdateMaterialBody);

/** A parsed sheet row: its cells as body fields (only those the caller may write), or why it cannot be read. */
interface ParsedRow {
  row: number;
  baseId: number | null;
  body: Record<string, string | number | null>;
  error?: string;
}

type Planned =
  | { kind: 'create'; result: RowResult; values: ColumnValues & { name: string; category: string; companyName: string } }
  | { kind: 'update'; result: RowResult; current: MaterialRow; values: ColumnValues };

export const materialImport: ImportKind = {
  type: 'material',
  permission: 'material_list:operation',
  label: '物料',
  template: { columns: COLUMNS.map((column) => ({ header: column.headers[0]!, note: column.note, example: column.example })) },
  plan: planMaterials,
};

/**
 * The one validation of a material import (preview and execute both run it, execute inside its
 * transaction). Create mode: a material with the same company, name and spec_model already there is a
 * duplicate. Update mode: a row matching a material (by 物料ID, else by company + name + spec_model) updates
 * it — only the columns the file has, an empty cell clearing the field — and an unmatched row creates one.
 * A row repeating an earlier row of the file is a duplicate in both modes. Fields follow the material
 * field permissions exactly as the API does (an unwritable column is ignored, and listed).
 */
async function planMaterials(ctx: UseCaseContext, q: Queryable, sheet: ImportSheet, mode: ImportMode): Promise<ImportPlan> {
  const { positions, unknown } = mapColumns(sheet.header, COLUMNS);
  if (!positions.has('name') && !positions.has('base_id')) throw validationFailed('表头中没有「名称」或「物料ID」列，请使用物料导入模板', { field: 'file' });
  // create mode only creates, and a material needs its name and category: without either column no row could be imported
  if (mode === 'create') {
    for (const required of ['name', 'category'] as const) {
      if (!positions.has(required)) throw validationFailed(`新建模式的表头中没有「${LABEL.get(required)}」列，请使用物料导入模板`, { field: 'file' });
    }
  }
  const writable = writableFields(ctx, [...positions.keys()]);
  const ignoredColumns = [...unknown, ...[...positions.keys()].filter((field) => !writable.has(field)).map((field) => sheet.header[positions.get(field)!]!)];
  const parsed = sheet.rows.map((sheetRow): ParsedRow => {
    const body: ParsedRow['body'] = {};
    for (const [field, index] of positions) {
      if (!writable.has(field)) continue;
      const cell = readCell(sheetRow.cells[index], COLUMNS.find((column) => column.field === field)!.kind, LABEL.get(field)!);
      if (!cell.ok) return { row: sheetRow.rowNumber, baseId: null, body, error: cell.msg };
      body[field] = cell.value;
    }
    const baseId = typeof body.base_id === 'number' ? body.base_id : null;
    delete body.base_id;
    return { row: sheetRow.rowNumber, baseId, body };
  });
  const lookups = await lookUp(ctx, q, parsed);
  const planned: Planned[] = [];
  const results: RowResult[] = [];
  const seen = new Map<string, number>();
  for (const row of parsed) {
    const outcome = judge(ctx, row, mode, lookups, seen);
    results.push('kind' in outcome ? outcome.result : outcome);
    if ('kind' in outcome) planned.push(outcome);
  }
  return { rows: results, ignoredColumns, apply: (tx) => applyMaterials(ctx, tx, planned) };
}

/** Fields the caller may write, by the material field map (company_name: cross-domain callers only). */
function writableFields(ctx: UseCaseContext, fields: Field[]): Set<Field> {
  const probe = Object.fromEntries(fields.filter((field) => field !== 'base_id').map((field) => [field, 'x']));
  const kept = new Set(Object.keys(dropUnwritableFields(ctx.actor, probe)) as Field[]);
  if (fields.includes('base_id')) kept.add('base_id');
  return kept;
}

interface Lookups {
  byId: Map<number, MaterialRow>;
  byKey: Map<string, MaterialRow[]>;
  knownCompanies: Set<string>;
}

const keyOf = (company: string, name: string, specModel: string) => JSON.stringify([company, name.trim(), specModel.trim()]);

/** Everything the verdicts need from the database, in three queries whatever the number of rows. */
async function lookUp(ctx: UseCaseContext, q: Queryable, rows: ParsedRow[]): Promise<Lookups> {
  const ids = [...new Set(rows.map((row) => row.baseId).filter((id): id is number => id !== null && id > 0 && id <= 2147483647))];
  const names = [...new Set(rows.map((row) => row.body.name).filter((name): name is string => typeof name === 'string').map((name) => name.trim()))];
  const scope = companyCondition(ctx.scope(), materials.companyName);
  const byIdRows = ids.length ? await q.select().from(materials).where(and(inArray(materials.id, ids), scope)) : [];
  const byNameRows = names.length ? await q.select().from(materials).where(and(inArray(materials.name, names), scope)) : [];
  const byKey = new Map<string, MaterialRow[]>();
  for (const material of byNameRows) {
    const key = keyOf(material.companyName, material.name, material.specModel);
    byKey.set(key, [...(byKey.get(key) ?? []), material]);
  }
  const companies = [...new Set(rows.map((row) => row.body.company_name).filter((c): c is string => typeof c === 'string'))];
  const known = companies.length
    ? await q.selectDistinct({ company: users.companyName }).from(users).where(inArray(users.companyName, companies))
    : [];
  return { byId: new Map(byIdRows.map((row) => [row.id, row])), byKey, knownCompanies: new Set(known.map((row) => row.company!)) };
}

const error = (row: number, message: string): RowResult => ({ row, status: 'error', message });

function judge(ctx: UseCaseContext, row: ParsedRow, mode: ImportMode, lookups: Lookups, seen: Map<string, number>): RowResult | Planned {
  if (row.error) return error(row.row, row.error);
  const matchedById = row.baseId === null ? undefined : lookups.byId.get(row.baseId);
  if (row.baseId !== null && !matchedById && mode === 'update') return error(row.row, `物料ID ${row.baseId} 不存在`);
  const company = companyOfRow(ctx, row, matchedById, lookups);
  if (typeof company !== 'string') return error(row.row, company.error);
  const name = typeof row.body.name === 'string' ? row.body.name : row.body.name === undefined ? matchedById?.name : undefined;
  if (name === undefined || name === null) return error(row.row, `${LABEL.get('name')} 不能为空`);
  const specModel = row.body.spec_model === undefined ? (matchedById?.specModel ?? '') : String(row.body.spec_model ?? '');
  const key = keyOf(company, name, specModel);
  const matches = matchedById ? [matchedById] : (lookups.byKey.get(key) ?? []);
  // an earlier row may name the same material another way (by 物料ID, or by its name before a rename)
  const idKey = matches.length === 1 ? `id:${matches[0]!.id}` : undefined;
  const earlier = seen.get(key);
  if (earlier !== undefined) return { row: row.row, status: 'duplicate', message: `与第 ${earlier} 行重复（同一公司、名称与规格型号）` };
  const earlierOfMaterial = idKey ? seen.get(idKey) : undefined;
  if (earlierOfMaterial !== undefined) return { row: row.row, status: 'duplicate', message: `与第 ${earlierOfMaterial} 行是同一物料（ID ${matches[0]!.id}）` };
  seen.set(key, row.row);
  if (idKey) seen.set(idKey, row.row);
  if (mode === 'create' && matches.length > 0) {
    return { row: row.row, status: 'duplicate', message: `已存在相同名称和规格型号的物料（ID ${matches[0]!.id}）`, id: matches[0]!.id };
  }
  if (matches.length > 1) return error(row.row, `匹配到 ${matches.length} 个同名同规格的物料，请填写物料ID`);
  return matches[0] ? planUpdate(row, matches[0]) : planCreate(row, company);
}

/** The row's company: the caller's own, or for cross-domain callers the 公司 column (else the matched material's). */
function companyOfRow(ctx: UseCaseContext, row: ParsedRow, matched: MaterialRow | undefined, lookups: Lookups): string | { error: string } {
  if (!isCrossDomain(ctx.actor)) return ctx.actor.company ?? { error: '当前账号未归属任何公司，不能导入物料' };
  const named = typeof row.body.company_name === 'string' ? row.body.company_name : undefined;
  if (!named) return matched?.companyName ?? { error: '跨公司账号导入时必须填写「公司」' };
  if (!lookups.knownCompanies.has(named)) return { error: `公司 ${named} 不存在（没有任何用户属于该公司）` };
  return named;
}

function labelled(check: { msg: string; field: string }): string {
  const field = check.field.split('.')[0] as Field;
  const label = LABEL.get(field);
  return label ? `${label}: ${check.msg}` : check.msg;
}

function planCreate(row: ParsedRow, company: string): RowResult | Planned {
  const input = Object.fromEntries(Object.entries(row.body).filter(([field, value]) => value !== null && field !== 'company_name'));
  const checked = checkCreate(input);
  if (!checked.ok) return error(row.row, labelled(checked));
  try {
    const values = { ...columnValues(checked.value), name: checked.value.name!.trim(), category: requireCategory(checked.value.category!), companyName: company };
    return { kind: 'create', values, result: { row: row.row, status: 'success', message: '新建物料' } };
  } catch (err) {
    if (err instanceof AppError) return error(row.row, err.message);
    throw err;
  }
}

function planUpdate(row: ParsedRow, current: MaterialRow): RowResult | Planned {
  const input: Record<string, unknown> = { ...row.body };
  delete input.company_name; // an import never moves a material to another company
  for (const required of ['name', 'category'] as const) {
    if (input[required] === null) return error(row.row, `${LABEL.get(required)} 不能为空`);
  }
  const checked = checkUpdate(input);
  if (!checked.ok) return error(row.row, labelled(checked));
  try {
    const values = columnValues(checked.value);
    const message = changesAnything(current, values) ? `更新物料 ID ${current.id}` : `物料 ID ${current.id} 内容无变化`;
    return { kind: 'update', current, values, result: { row: row.row, status: 'update', message, id: current.id } };
  } catch (err) {
    if (err instanceof AppError) return error(row.row, err.message);
    throw err;
  }
}

const INSERT_BATCH = 500;

/** Creates in batches, updates one by one (only what changes: an unchanged row leaves no audit record). */
async function applyMaterials(ctx: UseCaseContext, tx: Tx, planned: Planned[]): Promise<void> {
  const creates = planned.filter((plan) => plan.kind === 'create');
  for (let start = 0; start < creates.length; start += INSERT_BATCH) {
    const batch = creates.slice(start, start + INSERT_BATCH);
    const inserted = await tx
      .insert(materials)
      .values(batch.map((plan) => ({ ...plan.values, createdAt: ctx.now, updatedAt: ctx.now })))
      .returning({ id: materials.id });
    batch.forEach((plan, index) => {
      plan.result.id = inserted[index]!.id;
      plan.result.message = `已新建物料 ID ${plan.result.id}`;
    });
  }
  // as an edit through PUT: a new threshold may be a crossing, checked after the commit, once per company
  const newThresholds = new Map<string, number[]>();
  for (const plan of planned) {
    if (plan.kind !== 'update' || !changesAnything(plan.current, plan.values)) continue;
    await tx.update(materials).set({ ...plan.values, updatedAt: ctx.now }).where(eq(materials.id, plan.current.id));
    plan.result.message = `已更新物料 ID ${plan.current.id}`;
    if (changesThresholds(plan.current, plan.values)) {
      newThresholds.set(plan.current.companyName, [...(newThresholds.get(plan.current.companyName) ?? []), plan.current.id]);
    }
  }
  for (const [company, ids] of newThresholds) await scheduleLowStockCheck(ctx, tx, company, ids);
  if (planned.length > 0) ctx.afterCommit(() => specSuggestionCache.clear());
}
