import { and, inArray } from 'drizzle-orm';
import { AppError, companyCondition, validationFailed, type ImportSheet, type Queryable, type Tx, type UseCaseContext } from '@wms/platform';
import { bomVersions, materials } from '../../db/schema/index.js';
import { checkBomLines, lockParent, type BomParent } from '../bom/bom-materials.js';
import { currentVersionOf, draftOf, publishBom } from '../bom/bom-versions.js';
import { dropUnwritableRemark } from '../bom/bom-write-service.js';
import { MAX_BOM_LINES } from '../bom/schemas.js';
import { importedBomsClosingCycles } from './bom-import-cycles.js';
import { mapColumns, readCell, type ImportColumn, type ImportKind, type ImportMode, type ImportPlan, type RowResult } from './import-plan.js';

type Field = 'parent_id' | 'parent_name' | 'parent_spec_model' | 'child_id' | 'child_name' | 'child_spec_model' | 'quantity' | 'remark' | 'bom_remark';

const COLUMNS: readonly (ImportColumn<Field> & { note: string; example: string | number })[] = [
  { field: 'parent_id', headers: ['父件物料ID', 'parent_id'], kind: 'integer', note: '父件：填物料ID，或填名称与规格型号', example: '' },
  { field: 'parent_name', headers: ['父件名称', 'parent_name'], kind: 'text', note: '', example: '控制板' },
  { field: 'parent_spec_model', headers: ['父件规格型号', 'parent_spec_model'], kind: 'text', note: '', example: 'CB-01' },
  { field: 'child_id', headers: ['子件物料ID', 'child_id'], kind: 'integer', note: '子件：填物料ID，或填名称与规格型号', example: '' },
  { field: 'child_name', headers: ['子件名称', 'child_name'], kind: 'text', note: '', example: '电阻' },
  { field: 'child_spec_model', headers: ['子件规格型号', 'child_spec_model'], kind: 'text', note: '', example: '0603 10kΩ' },
  { field: 'quantity', headers: ['用量', 'quantity'], kind: 'number', note: '必填，每个父件的用量，大于 0', example: 4 },
  { field: 'remark', headers: ['子件备注', '行备注', 'remark'], kind: 'text', note: '', example: '' },
  { field: 'bom_remark', headers: ['BOM备注', 'bom_remark'], kind: 'text', note: '同一父件取第一个非空值；需 bom_manage:remark', example: '' },
];
const LABEL = new Map(COLUMNS.map((column) => [column.field, column.headers[0]!]));
const MAX_QUANTITY = 1e12;

export const bomImport: ImportKind = {
  type: 'bom',
  permission: 'bom_manage:operation',
  label: 'BOM',
  template: { columns: COLUMNS.map((column) => ({ header: column.headers[0]!, note: column.note, example: column.example })) },
  plan: planBoms,
};

type Cells = Partial<Record<Field, string | number | null>>;
type MaterialRef = { id: number; name: string; specModel: string; category: string; unit: string; companyName: string };

interface BomRow {
  result: RowResult;
  parent?: MaterialRef;
  childId?: number;
  quantity?: number;
  remark?: string | null;
  bomRemark?: string | null;
}

interface PlannedBom {
  parentId: number;
  rows: BomRow[];
  remark?: string | null;
  /** The published version the rows were judged against (0: none); execute refuses when it moved since. */
  judgedVersion: number;
}

/**
 * The one validation of a BOM import. Each parent's rows form one BOM, published as its next version
 * (the API's own publish: same line checks). Create mode: a parent that already has a published BOM is a
 * duplicate; update mode publishes a new version over it. A child repeated under one parent is a duplicate
 * row; any error in a parent's rows keeps its whole BOM out (a BOM missing a line would be wrong), and a
 * parent with an open draft is refused (the draft is somebody's unfinished edit).
 */
async function planBoms(ctx: UseCaseContext, q: Queryable, sheet: ImportSheet, mode: ImportMode): Promise<ImportPlan> {
  const { positions, unknown } = mapColumns(sheet.header, COLUMNS);
  if (!positions.has('quantity')) throw validationFailed('表头中没有「用量」列，请使用 BOM 导入模板', { field: 'file' });
  // without a way to name the parent or the child no row could ever be imported: the header is wrong, not the rows
  if (!positions.has('parent_id') && !positions.has('parent_name')) {
    throw validationFailed('表头中没有「父件物料ID」或「父件名称」列，请使用 BOM 导入模板', { field: 'file' });
  }
  if (!positions.has('child_id') && !positions.has('child_name')) {
    throw validationFailed('表头中没有「子件物料ID」或「子件名称」列，请使用 BOM 导入模板', { field: 'file' });
  }
  const mayWriteRemark = 'remark' in dropUnwritableRemark(ctx.actor, { parent_id: 1, remark: 'x' });
  const ignoredColumns = [...unknown];
  if (!mayWriteRemark && positions.has('bom_remark')) {
    ignoredColumns.push(sheet.header[positions.get('bom_remark')!]!);
    positions.delete('bom_remark');
  }
  const cells = sheet.rows.map((sheetRow) => {
    const values: Cells = {};
    for (const [field, index] of positions) {
      const cell = readCell(sheetRow.cells[index], COLUMNS.find((column) => column.field === field)!.kind, LABEL.get(field)!);
      if (!cell.ok) return { row: sheetRow.rowNumber, values, error: cell.msg };
      values[field] = cell.value;
    }
    return { row: sheetRow.rowNumber, values, error: undefined };
  });
  const resolve = await materialResolver(ctx, q, cells.map((c) => c.values));
  const rows = cells.map(({ row, values, error }) => parseRow(row, values, error, resolve));
  const groups = groupByParent(rows);
  const versions = await versionsOf(q, [...groups.keys()]);
  const judged: PlannedBom[] = [];
  for (const [parentId, groupRows] of groups) {
    const plan = await judgeGroup(ctx, q, mode, groupRows, versions.get(parentId));
    if (plan) judged.push({ parentId, ...plan });
  }
  const planned = await withoutFileCycles(q, judged);
  return { rows: rows.map((row) => row.result), ignoredColumns, apply: (tx) => applyBoms(ctx, tx, planned) };
}

function parseRow(row: number, values: Cells, error: string | undefined, resolve: Resolver): BomRow {
  const fail = (message: string): BomRow => ({ result: { row, status: 'error', message } });
  if (error) return fail(error);
  const parent = resolve('父件', values.parent_id, values.parent_name, values.parent_spec_model);
  if ('error' in parent) return fail(parent.error);
  const child = resolve('子件', values.child_id, values.child_name, values.child_spec_model);
  if ('error' in child) return { ...fail(child.error), parent };
  const quantity = values.quantity;
  if (typeof quantity !== 'number' || quantity <= 0 || quantity > MAX_QUANTITY) return { ...fail('用量 必填，应为大于 0 的数字'), parent };
  const remark = typeof values.remark === 'string' ? values.remark : null;
  if ((remark?.length ?? 0) > 2000 || (typeof values.bom_remark === 'string' && values.bom_remark.length > 2000)) {
    return { ...fail('备注不能超过 2000 个字符'), parent };
  }
  const bomRemark = values.bom_remark === undefined ? undefined : (values.bom_remark as string | null);
  return { result: { row, status: 'success', message: '' }, parent, childId: child.id, quantity, remark, bomRemark };
}

type Resolver = (who: string, id: unknown, name: unknown, specModel: unknown) => MaterialRef | { error: string };

/** Materials of the caller's scope named by id, or by name and spec_model (one query each for the whole file). */
async function materialResolver(ctx: UseCaseContext, q: Queryable, rows: Cells[]): Promise<Resolver> {
  const ids = new Set<number>();
  const names = new Set<string>();
  for (const row of rows) {
    for (const [id, name] of [[row.parent_id, row.parent_name], [row.child_id, row.child_name]] as const) {
      if (typeof id === 'number' && id > 0 && id <= 2147483647) ids.add(id);
      else if (typeof name === 'string') names.add(name);
    }
  }
  const columns = { id: materials.id, name: materials.name, specModel: materials.specModel, category: materials.category, unit: materials.unit, companyName: materials.companyName };
  const scope = companyCondition(ctx.scope(), materials.companyName);
  const byId = new Map((ids.size ? await q.select(columns).from(materials).where(and(inArray(materials.id, [...ids]), scope)) : []).map((m) => [m.id, m]));
  const byKey = new Map<string, MaterialRef[]>();
  for (const material of names.size ? await q.select(columns).from(materials).where(and(inArray(materials.name, [...names]), scope)) : []) {
    const key = JSON.stringify([material.name, material.specModel]);
    byKey.set(key, [...(byKey.get(key) ?? []), material]);
  }
  return (who, id, name, specModel) => {
    if (typeof id === 'number') return byId.get(id) ?? { error: `${who}物料ID ${id} 不存在` };
    if (typeof name !== 'string') return { error: `${who}: 请填写物料ID，或名称与规格型号` };
    const spec = typeof specModel === 'string' ? specModel : '';
    const found = byKey.get(JSON.stringify([name, spec])) ?? [];
    if (found.length === 0) return { error: `${who}「${name}${spec ? ` ${spec}` : ''}」不存在` };
    if (found.length > 1) return { error: `${who}「${name}${spec ? ` ${spec}` : ''}」匹配到 ${found.length} 个物料，请填写物料ID` };
    return found[0]!;
  };
}

/** Rows by parent in the order parents first appear; rows without a parent stay errors on their own. */
function groupByParent(rows: BomRow[]): Map<number, BomRow[]> {
  const groups = new Map<number, BomRow[]>();
  for (const row of rows) {
    if (!row.parent) continue;
    groups.set(row.parent.id, [...(groups.get(row.parent.id) ?? []), row]);
  }
  return groups;
}

interface ParentVersions {
  published?: number;
  hasDraft: boolean;
}

async function versionsOf(q: Queryable, parentIds: number[]): Promise<Map<number, ParentVersions>> {
  const found = new Map<number, ParentVersions>();
  if (parentIds.length === 0) return found;
  const rows = await q
    .select({ parentId: bomVersions.parentId, status: bomVersions.status, version: bomVersions.version })
    .from(bomVersions)
    .where(inArray(bomVersions.parentId, parentIds));
  for (const row of rows) {
    const entry = found.get(row.parentId) ?? { hasDraft: false };
    if (row.status === 'draft') entry.hasDraft = true;
    else entry.published = Math.max(entry.published ?? 0, row.version);
    found.set(row.parentId, entry);
  }
  return found;
}

async function judgeGroup(
  ctx: UseCaseContext,
  q: Queryable,
  mode: ImportMode,
  rows: BomRow[],
  versions: ParentVersions | undefined,
): Promise<Omit<PlannedBom, 'parentId'> | undefined> {
  const parent = rows[0]!.parent as BomParent;
  const firstRowOfChild = new Map<number, number>();
  for (const row of rows) {
    if (row.result.status === 'error' || row.childId === undefined) continue;
    const earlier = firstRowOfChild.get(row.childId);
    if (earlier !== undefined) row.result = { row: row.result.row, status: 'duplicate', message: `与第 ${earlier} 行的子件重复` };
    else firstRowOfChild.set(row.childId, row.result.row);
  }
  const lines = rows.filter((row) => row.result.status === 'success');
  const problems = await checkBomLines(q, ctx.scope(), parent, lines.map((row) => row.childId!));
  for (const problem of problems) lines[problem.index]!.result = { row: lines[problem.index]!.result.row, status: 'error', message: problem.msg };
  const refuseAll = (status: 'error' | 'duplicate', message: string) => {
    for (const row of rows) if (row.result.status === 'success') row.result = { row: row.result.row, status, message };
    return undefined;
  };
  if (versions?.hasDraft) return refuseAll('error', `父件 ${parent.name} 有未发布的 BOM 草稿，请先发布或删除草稿`);
  if (rows.some((row) => row.result.status === 'error')) return refuseAll('error', `父件 ${parent.name} 的其他行有错误，整个 BOM 未导入`);
  if (mode === 'create' && versions?.published) return refuseAll('duplicate', `父件 ${parent.name} 已有 BOM（第 ${versions.published} 版）`);
  const kept = rows.filter((row) => row.result.status === 'success');
  if (kept.length === 0) return undefined;
  // the API's own limit on a BOM's lines (SaveBomBody), so an imported BOM can be edited like any other
  if (kept.length > MAX_BOM_LINES) return refuseAll('error', `父件 ${parent.name} 有 ${kept.length} 个子件，一个 BOM 最多 ${MAX_BOM_LINES} 个，整个 BOM 未导入`);
  const status = versions?.published ? 'update' : 'success';
  const message = versions?.published ? `发布为第 ${versions.published + 1} 版（覆盖第 ${versions.published} 版）` : '发布为第 1 版';
  for (const row of kept) row.result = { row: row.result.row, status, message, id: null };
  const remark = rows.find((row) => typeof row.bomRemark === 'string')?.bomRemark ?? (rows.some((row) => row.bomRemark === null) ? null : undefined);
  return { rows: kept, remark, judgedVersion: versions?.published ?? 0 };
}

/** The planned BOMs less those that would close a cycle with an earlier BOM of the file (their rows become errors). */
async function withoutFileCycles(q: Queryable, planned: PlannedBom[]): Promise<PlannedBom[]> {
  const refused = await importedBomsClosingCycles(q, planned.map((plan) => ({ parentId: plan.parentId, childIds: plan.rows.map((row) => row.childId!) })));
  for (const plan of planned.filter((candidate) => refused.has(candidate.parentId))) {
    const message = `父件 ${(plan.rows[0]!.parent as BomParent).name} 的 BOM 会与本文件前面的 BOM 形成循环，整个 BOM 未导入`;
    for (const row of plan.rows) row.result = { row: row.result.row, status: 'error', message };
  }
  return planned.filter((plan) => !refused.has(plan.parentId));
}

/** Each parent's BOM published through the API's own path, all inside the execute transaction. */
async function applyBoms(ctx: UseCaseContext, tx: Tx, planned: PlannedBom[]): Promise<void> {
  for (const plan of planned) {
    const parent = await lockParent(tx, ctx.scope(), plan.parentId);
    if (await draftOf(tx, plan.parentId)) throw new AppError('CONFLICT', `父件 ${parent.name} 刚刚有了 BOM 草稿，请重新预览后再导入`);
    // judged before the parent was locked: a BOM published since (another import, the API) makes the judgement stale
    if (((await currentVersionOf(tx, plan.parentId))?.version ?? 0) !== plan.judgedVersion) {
      throw new AppError('CONFLICT', `父件 ${parent.name} 的 BOM 刚刚被其他人修改，请重新预览后再导入`);
    }
    const items = plan.rows.map((row) => ({ child_id: row.childId!, quantity: row.quantity!, remark: row.remark }));
    const published = await publishBom(ctx, tx, parent, { remark: plan.remark, items });
    for (const row of plan.rows) {
      row.result.id = published.id;
      row.result.message = `已发布第 ${published.version} 版`;
    }
  }
}
